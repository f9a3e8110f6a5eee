import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { CustomFieldDefinition } from "../customField/definition.js"
import { parseContactCreate, parseContactPatch } from "./input.js"

const at = "2026-01-01T00:00:00.000Z"
const defs: ReadonlyArray<CustomFieldDefinition> = [
  { object: "contact", key: "industry", label: "Industry", type: "enum", options: ["saas", "fintech"], created_at: at },
  { object: "contact", key: "seats", label: "Seats", type: "number", options: null, created_at: at },
  { object: "contact", key: "vip", label: "VIP", type: "boolean", options: null, created_at: at },
  { object: "contact", key: "since", label: "Since", type: "date", options: null, created_at: at },
  { object: "contact", key: "notes", label: "Notes", type: "text", options: null, created_at: at },
  { object: "deal", key: "region", label: "Region", type: "text", options: null, created_at: at }
]

const paths = (result: Result.Result<unknown, { details: ReadonlyArray<{ path: string }> }>) =>
  Result.isFailure(result) ? result.failure.details.map((d) => d.path) : []

describe("parseContactCreate", () => {
  it("fills every standard field and keeps the given custom keys", () => {
    const parsed = parseContactCreate({ email: "  Ada@Example.com ", industry: "saas", vip: null }, defs)
    expect(parsed).toEqual(
      Result.succeed({
        email: "Ada@Example.com",
        first_name: null,
        last_name: null,
        phone: null,
        title: null,
        company_id: null,
        company_ids: [],
        source: null,
        owner_id: null,
        industry: "saas",
        vip: null
      })
    )
  })

  it("requires an email", () => {
    const parsed = parseContactCreate({ first_name: "Ada" }, defs)
    expect(Result.isFailure(parsed) && parsed.failure.message).toBe("email is required")
  })

  it.each([["not-an-email"], ["a@localhost"], ["a b@example.com"], [`${"a".repeat(250)}@example.com`], [42], [null]])(
    "refuses the email %j",
    (email) => {
      expect(paths(parseContactCreate({ email }, defs))).toEqual(["email"])
    }
  )

  it("refuses a body that is not an object with path ''", () => {
    for (const body of [null, [], "x", 3]) expect(paths(parseContactCreate(body, defs))).toEqual([""])
  })

  it("reports every offending key at once", () => {
    const parsed = parseContactCreate(
      {
        email: "ada@example.com",
        first_name: 3,
        title: "x".repeat(1001),
        id: "con_x",
        deal_ids: [],
        frist_name: "typo",
        region: "emea",
        industry: "retail",
        seats: "10",
        vip: "yes",
        since: "2026-02-30",
        notes: "n".repeat(10_001)
      },
      defs
    )
    expect(paths(parsed)).toEqual([
      "first_name",
      "title",
      "id",
      "deal_ids",
      "frist_name",
      "region",
      "industry",
      "seats",
      "vip",
      "since",
      "notes"
    ])
    const messages = Result.isFailure(parsed) ? parsed.failure.details.map((d) => d.message) : []
    expect(messages[2]).toBe("is read-only")
    expect(messages[4]).toBe("is not a known field")
  })

  it("never treats inherited property names as fields", () => {
    expect(paths(parseContactCreate({ email: "a@b.co", constructor: "x", toString: "y" }, defs))).toEqual(["constructor", "toString"])
  })
})

describe("a body's companies", () => {
  const companiesOf = (parsed: Result.Result<Record<string, unknown>, unknown>) =>
    Result.isSuccess(parsed) ? [parsed.success["company_id"], parsed.success["company_ids"]] : parsed.failure

  it("sets company_ids from company_id alone, and company_id from company_ids alone", () => {
    expect(companiesOf(parseContactCreate({ email: "a@b.co", company_id: "comp_1" }, defs))).toEqual(["comp_1", ["comp_1"]])
    expect(companiesOf(parseContactPatch({ company_id: null }, defs))).toEqual([null, []])
    expect(companiesOf(parseContactCreate({ email: "a@b.co", company_ids: ["comp_2", "comp_1", "comp_2"] }, defs))).toEqual([
      "comp_2",
      ["comp_2", "comp_1"]
    ])
    expect(companiesOf(parseContactPatch({ company_ids: [] }, defs))).toEqual([null, []])
  })

  it("takes both when company_id is one of company_ids, moved first, or null", () => {
    expect(companiesOf(parseContactPatch({ company_ids: ["comp_1", "comp_2"], company_id: "comp_2" }, defs))).toEqual([
      "comp_2",
      ["comp_2", "comp_1"]
    ])
    expect(companiesOf(parseContactPatch({ company_id: null, company_ids: ["comp_1"] }, defs))).toEqual([null, ["comp_1"]])
  })

  it("refuses a company_id that is not one of the company_ids given with it, at company_id", () => {
    expect(paths(parseContactCreate({ email: "a@b.co", company_id: "comp_3", company_ids: ["comp_1"] }, defs))).toEqual(["company_id"])
    expect(paths(parseContactPatch({ company_id: "comp_1", company_ids: [] }, defs))).toEqual(["company_id"])
  })

  it("leaves a body without either as it is, and checks the list's shape at company_ids", () => {
    expect(parseContactPatch({ title: "CTO" }, defs)).toEqual(Result.succeed({ title: "CTO" }))
    expect(paths(parseContactPatch({ company_ids: "comp_1" }, defs))).toEqual(["company_ids"])
    expect(paths(parseContactPatch({ company_ids: Array.from({ length: 101 }, (_, i) => `comp_${i}`) }, defs))).toEqual(["company_ids"])
  })
})

describe("parseContactPatch", () => {
  it("keeps only the given keys, nulls included", () => {
    expect(parseContactPatch({ last_name: null, seats: 12, since: "2024-02-29" }, defs)).toEqual(
      Result.succeed({ last_name: null, seats: 12, since: "2024-02-29" })
    )
  })
  it("accepts an empty patch", () => {
    expect(parseContactPatch({}, defs)).toEqual(Result.succeed({}))
  })
  it("does not let email be cleared", () => {
    expect(paths(parseContactPatch({ email: null }, defs))).toEqual(["email"])
  })
})
