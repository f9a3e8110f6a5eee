import { describe, expect, it } from "@effect/vitest"
import { patchedCompanyId, showingLiveCompany } from "./companyLink.js"

describe("a deal's link to a company", () => {
  it("shows company_id only while the company is live, keeping the key order", () => {
    const deal = { id: "deal_1", company_id: "comp_a", status: "open" }
    expect(showingLiveCompany(deal, new Set(["comp_a"]))).toBe(deal)
    const hidden = showingLiveCompany(deal, new Set())
    expect(JSON.stringify(hidden)).toBe(JSON.stringify({ id: "deal_1", company_id: null, status: "open" }))
    expect(showingLiveCompany({ id: "deal_2", company_id: null }, new Set())).toEqual({ id: "deal_2", company_id: null })
  })

  it("keeps a company in the trash when a patch sends null, and takes anything else as given", () => {
    const stored = { company_id: "comp_a" }
    expect(patchedCompanyId({ company_id: null, name: "x" }, stored, "comp_a")).toEqual({ name: "x" })
    expect(patchedCompanyId({ company_id: null }, stored, null)).toEqual({ company_id: null })
    expect(patchedCompanyId({ company_id: "comp_b" }, stored, "comp_a")).toEqual({ company_id: "comp_b" })
  })
})
