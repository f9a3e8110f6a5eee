import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { expandContact, parseExpand } from "./expand.js"

describe("parseExpand", () => {
  it("takes deals and activities, alone, together, in any order, with spaces", () => {
    expect(parseExpand(null)).toEqual(Result.succeed(new Set()))
    expect(parseExpand("  ")).toEqual(Result.succeed(new Set()))
    expect(parseExpand("deals")).toEqual(Result.succeed(new Set(["deals"])))
    expect(parseExpand(" activities , deals")).toEqual(Result.succeed(new Set(["activities", "deals"])))
  })

  it("refuses anything else at `expand`", () => {
    const refused = parseExpand("deals,company")
    expect(Result.isFailure(refused) && refused.failure.details).toEqual([
      { path: "expand", message: `has an unknown value "company"; use deals, activities` }
    ])
    expect(Result.isFailure(parseExpand("deals,"))).toBe(true)
  })
})

describe("expandContact", () => {
  const contact = { id: "con_1", email: "ada@example.com", deal_ids: ["deal_1"], company_ids: [] }
  const deal = { id: "deal_1", name: "Pilot" }
  const activity = { id: "act_1", type: "contact.created", occurred_at: "2026-01-01T00:00:00.000Z", data: {} }

  it("puts the deals in place of deal_ids, at the end, then the activities", () => {
    expect(JSON.stringify(expandContact(contact, { deals: [deal], activities: [activity] }))).toBe(
      JSON.stringify({ id: "con_1", email: "ada@example.com", company_ids: [], deals: [deal], activities: [activity] })
    )
  })

  it("keeps deal_ids when only the activities are expanded, and changes nothing when nothing is", () => {
    expect(expandContact(contact, { activities: [] })).toEqual({ ...contact, activities: [] })
    expect(expandContact(contact, {})).toEqual(contact)
  })
})
