import { describe, expect, it } from "@effect/vitest"
import { contactView } from "./view.js"

describe("contactView", () => {
  const visible = {
    id: "con_1",
    email: "ada@example.com",
    company_id: "comp_1",
    company_ids: ["comp_1", "comp_2"],
    created_at: "2026-01-01T00:00:00.000Z"
  }

  it("shows its live companies in place, then the deals that name the contact", () => {
    const deals = [
      { id: "deal_1", data: { contact_ids: ["con_2", "con_1"] } },
      { id: "deal_2", data: { contact_ids: ["con_2"] } },
      { id: "deal_3", data: { contact_ids: ["con_1"] } }
    ]
    expect(JSON.stringify(contactView("con_1", visible, deals, new Set(["comp_1", "comp_2"])))).toBe(
      JSON.stringify({ ...visible, deal_ids: ["deal_1", "deal_3"] })
    )
  })

  it("hides a company that is not live, the primary one as a null company_id", () => {
    expect(contactView("con_1", visible, [], new Set(["comp_2"]))).toEqual({
      ...visible,
      company_id: null,
      company_ids: ["comp_2"],
      deal_ids: []
    })
  })

  it("has empty lists without deals or companies", () => {
    const none = { ...visible, company_id: null, company_ids: [] }
    expect(contactView("con_1", none, [], new Set())).toEqual({ ...none, deal_ids: [] })
  })
})
