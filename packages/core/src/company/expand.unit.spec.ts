import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { expandCompany, parseCompanyExpand } from "./expand.js"

const visible = { id: "comp_1", name: "Acme", created_at: "t", updated_at: "t" }

describe("parseCompanyExpand", () => {
  const parsed = (raw: string | null) => {
    const result = parseCompanyExpand(raw)
    return Result.isSuccess(result) ? [...result.success].sort() : result.failure.details
  }

  it("takes contacts, deals and activities in any order, and nothing for absent or blank", () => {
    expect(parsed("activities, contacts,deals")).toEqual(["activities", "contacts", "deals"])
    expect(parsed("deals,deals")).toEqual(["deals"])
    expect(parsed(null)).toEqual([])
    expect(parsed("  ")).toEqual([])
  })

  it("refuses an unknown value at expand", () => {
    expect(parsed("contacts,owners")).toEqual([{ path: "expand", message: expect.stringContaining('"owners"') }])
    expect(parsed("contacts,")).toEqual([{ path: "expand", message: expect.stringContaining('""') }])
  })
})

describe("expandCompany", () => {
  const view = { ...visible, contact_ids: ["con_1"], deal_ids: ["deal_1"] }

  it("replaces the ids it expands and keeps the others, derived keys last in their order", () => {
    const contacts = [{ id: "con_1" }]
    const deals = [{ id: "deal_1" }]
    expect(Object.keys(expandCompany(view, { contacts }))).toEqual([...Object.keys(visible), "deal_ids", "contacts"])
    expect(expandCompany(view, { contacts, deals, activities: [] })).toEqual({ ...visible, contacts, deals, activities: [] })
    expect(Object.keys(expandCompany(view, { deals, activities: [] }))).toEqual([
      ...Object.keys(visible),
      "contact_ids",
      "deals",
      "activities"
    ])
    expect(expandCompany(view, {})).toEqual(view)
  })
})
