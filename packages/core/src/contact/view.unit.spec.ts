import { describe, expect, it } from "@effect/vitest"
import { contactView } from "./view.js"

describe("contactView", () => {
  const visible = { id: "con_1", email: "ada@example.com", company_id: "comp_1", created_at: "2026-01-01T00:00:00.000Z" }

  it("adds the deals that name the contact and its company, after its fields", () => {
    const deals = [
      { id: "deal_1", data: { contact_ids: ["con_2", "con_1"] } },
      { id: "deal_2", data: { contact_ids: ["con_2"] } },
      { id: "deal_3", data: { contact_ids: ["con_1"] } }
    ]
    expect(JSON.stringify(contactView("con_1", visible, deals))).toBe(
      JSON.stringify({ ...visible, deal_ids: ["deal_1", "deal_3"], company_ids: ["comp_1"] })
    )
  })

  it("has empty lists without deals or company", () => {
    const { company_id: _none, ...alone } = visible
    expect(contactView("con_1", { ...alone, company_id: null }, [])).toEqual({ ...alone, company_id: null, deal_ids: [], company_ids: [] })
  })
})
