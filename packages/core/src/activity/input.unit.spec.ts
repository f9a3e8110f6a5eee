import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { CustomFieldDefinition } from "../customField/definition.js"
import { parseActivityCreate, parseActivityPatch } from "./input.js"

const at = "2026-01-01T00:00:00.000Z"
const defs: ReadonlyArray<CustomFieldDefinition> = [
  { object: "activity", key: "outcome", label: "Outcome", type: "enum", options: ["won", "lost"], created_at: at },
  { object: "contact", key: "industry", label: "Industry", type: "text", options: null, created_at: at }
]

const paths = (result: Result.Result<unknown, { details: ReadonlyArray<{ path: string }> }>) =>
  Result.isFailure(result) ? result.failure.details.map((d) => d.path) : []

describe("parseActivityCreate", () => {
  it("fills every standard field, links empty, takes done apart and keeps the given custom keys", () => {
    expect(
      parseActivityCreate({ type: "task", subject: "  Call Ada ", due_at: "2026-01-02T10:00:00+02:00", done: true, outcome: "won" }, defs)
    ).toEqual(
      Result.succeed({
        fields: {
          type: "task",
          subject: "Call Ada",
          body: null,
          due_at: "2026-01-02T08:00:00.000Z",
          owner_id: null,
          contact_ids: [],
          deal_ids: [],
          company_ids: [],
          outcome: "won"
        },
        done: true
      })
    )
  })

  it("gives done as null when the body leaves it out", () => {
    const parsed = parseActivityCreate({ type: "note", subject: "x", contact_ids: ["con_a", "con_a"] }, defs)
    expect(Result.isSuccess(parsed) && parsed.success.done).toBeNull()
    expect(Result.isSuccess(parsed) && parsed.success.fields["contact_ids"]).toEqual(["con_a"])
  })

  it("requires type and subject", () => {
    expect(paths(parseActivityCreate({ contact_ids: ["con_a"] }, defs))).toEqual(["type", "subject"])
  })

  it("reports every offending key at once, done among them", () => {
    const parsed = parseActivityCreate(
      {
        type: "lunch",
        subject: "",
        due_at: "2026-02-30T10:00:00Z",
        done: "yes",
        done_at: at,
        deal_ids: "deal_1",
        industry: "saas",
        outcome: "maybe",
        contact_ids: Array.from({ length: 101 }, (_, i) => `con_${i}`)
      },
      defs
    )
    expect(paths(parsed)).toEqual(["type", "subject", "due_at", "done_at", "deal_ids", "industry", "outcome", "contact_ids", "done"])
    const messages = Result.isFailure(parsed) ? Object.fromEntries(parsed.failure.details.map((d) => [d.path, d.message])) : {}
    expect(messages["done"]).toBe("must be a boolean")
    expect(messages["done_at"]).toBe("is read-only")
    expect(messages["industry"]).toBe("is not a known field")
  })

  it("refuses done: null and a body that is not an object", () => {
    expect(paths(parseActivityCreate({ type: "note", subject: "x", done: null }, defs))).toEqual(["done"])
    for (const body of [null, [], "x"]) expect(paths(parseActivityCreate(body, defs))).toEqual([""])
  })
})

describe("parseActivityPatch", () => {
  it("keeps only the given keys, and done apart", () => {
    expect(parseActivityPatch({ due_at: null, done: false }, defs)).toEqual(Result.succeed({ fields: { due_at: null }, done: false }))
    expect(parseActivityPatch({}, defs)).toEqual(Result.succeed({ fields: {}, done: null }))
  })
  it("does not let type or subject be cleared, nor a link list be null", () => {
    expect(paths(parseActivityPatch({ type: null, subject: null, contact_ids: null }, defs))).toEqual(["type", "subject", "contact_ids"])
  })
})
