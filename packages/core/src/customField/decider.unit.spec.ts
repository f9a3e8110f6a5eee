import { describe, expect, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import { customFieldDecider } from "./decider.js"
import type { CustomFieldEvent } from "./events.js"
import type { CustomFieldInput } from "./input.js"

const given = DeciderSpecification.for(customFieldDecider)
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const industry: CustomFieldInput = { object: "contact", key: "industry", label: "Industry", type: "enum", options: ["saas"] }
const defined: CustomFieldEvent = { type: "custom_field.defined", data: { definition: { ...industry, created_at: t0 } } }
const removed: CustomFieldEvent = { type: "custom_field.removed", data: { object: "contact", key: "industry", at: t1 } }

describe("customFieldDecider", () => {
  describe("DefineCustomField", () => {
    it("records the definition, stamped with its time", () => {
      given([]).when({ type: "DefineCustomField", at: t0, definition: industry }).then([defined])
    })
    it("refuses a key already defined for the same object", () => {
      given([defined])
        .when({ type: "DefineCustomField", at: t1, definition: { ...industry, type: "text", options: null } })
        .thenFails("Conflict", (e) => expect(e.details.map((d) => d.path)).toEqual(["key"]))
    })
    it("allows the same key on the other object, and again after removal", () => {
      const onDeals = { ...industry, object: "deal" as const }
      given([defined])
        .when({ type: "DefineCustomField", at: t1, definition: onDeals })
        .then([{ type: "custom_field.defined", data: { definition: { ...onDeals, created_at: t1 } } }])
      given([defined, removed])
        .when({ type: "DefineCustomField", at: t1, definition: industry })
        .then([{ type: "custom_field.defined", data: { definition: { ...industry, created_at: t1 } } }])
    })
  })

  describe("RemoveCustomField", () => {
    it("removes a defined field", () => {
      given([defined]).when({ type: "RemoveCustomField", object: "contact", key: "industry", at: t1 }).then([removed])
    })
    it("is not found for an unknown or already removed key", () => {
      given([defined])
        .when({ type: "RemoveCustomField", object: "deal", key: "industry", at: t1 })
        .thenFails("NotFound", (e) => expect([e.resource, e.id]).toEqual(["custom_field", "deal.industry"]))
      given([defined, removed]).when({ type: "RemoveCustomField", object: "contact", key: "industry", at: t1 }).thenFails("NotFound")
    })
  })

  it("keeps the definitions in the state", () => {
    const state = [defined].reduce(customFieldDecider.evolve, customFieldDecider.initialState)
    expect(state.definitions).toEqual([{ ...industry, created_at: t0 }])
    expect(customFieldDecider.evolve(state, removed).definitions).toEqual([])
  })
})
