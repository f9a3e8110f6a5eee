import { describe, expect, it } from "@effect/vitest"
import { companyView } from "./view.js"

const visible = { id: "comp_1", name: "Acme", created_at: "t", updated_at: "t" }

describe("companyView", () => {
  it("derives contact_ids from contacts' company_ids and deal_ids from deals' company_id, after the fields", () => {
    const view = companyView(
      "comp_1",
      visible,
      [
        { id: "con_1", data: { company_ids: ["comp_9", "comp_1"] } },
        { id: "con_2", data: { company_ids: ["comp_9"] } },
        { id: "con_3", data: { company_id: "comp_1" } },
        { id: "con_4", data: { company_ids: ["comp_1"] } }
      ],
      [
        { id: "deal_1", data: { company_id: "comp_9" } },
        { id: "deal_2", data: { company_id: "comp_1" } },
        { id: "deal_3", data: { company_id: null } }
      ]
    )
    expect(view).toEqual({ ...visible, contact_ids: ["con_1", "con_4"], deal_ids: ["deal_2"] })
    expect(Object.keys(view).slice(-2)).toEqual(["contact_ids", "deal_ids"])
  })
})
