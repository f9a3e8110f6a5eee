import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { expandContact, parseExpand, parseExpansions } from "./expand.js"

describe("parseExpand", () => {
  it("takes deals, companies and activities, alone, together, in any order, with spaces", () => {
    expect(parseExpand(null)).toEqual(Result.succeed(new Set()))
    expect(parseExpand("  ")).toEqual(Result.succeed(new Set()))
    expect(parseExpand("deals")).toEqual(Result.succeed(new Set(["deals"])))
    expect(parseExpand(" activities , companies,deals")).toEqual(Result.succeed(new Set(["activities", "companies", "deals"])))
  })

  it("refuses anything else at `expand`, naming what it takes", () => {
    const refused = parseExpand("deals,company")
    expect(Result.isFailure(refused) && refused.failure.details).toEqual([
      { path: "expand", message: `has an unknown value "company"; use deals, companies, activities` }
    ])
    expect(Result.isFailure(parseExpand("deals,"))).toBe(true)
  })

  it("is the parser every record's expand shares", () => {
    expect(parseExpansions("activities", ["companies", "activities"])).toEqual(Result.succeed(new Set(["activities"])))
    expect(Result.isFailure(parseExpansions("deals", ["companies", "activities"]))).toBe(true)
  })
})

describe("expandContact", () => {
  const contact = { id: "con_1", email: "ada@example.com", company_id: "comp_1", company_ids: ["comp_1"], deal_ids: ["deal_1"] }
  const deal = { id: "deal_1", name: "Pilot" }
  const company = { id: "comp_1", name: "ACME" }
  const activity = { id: "act_1", type: "note", subject: "Called" }

  it("puts deals and companies in place of their ids, at the end, then the activities", () => {
    expect(JSON.stringify(expandContact(contact, { deals: [deal], companies: [company], activities: [activity] }))).toBe(
      JSON.stringify({
        id: "con_1",
        email: "ada@example.com",
        company_id: "comp_1",
        deals: [deal],
        companies: [company],
        activities: [activity]
      })
    )
  })

  it("keeps the ids of what is not expanded where they are, and changes nothing when nothing is", () => {
    expect(JSON.stringify(expandContact(contact, { companies: [company] }))).toBe(
      JSON.stringify({ id: "con_1", email: "ada@example.com", company_id: "comp_1", deal_ids: ["deal_1"], companies: [company] })
    )
    expect(expandContact(contact, { activities: [] })).toEqual({ ...contact, activities: [] })
    expect(expandContact(contact, {})).toEqual(contact)
  })
})
