import { describe, expect, it } from "@effect/vitest"
import { namedCompanies, patchedCompanies, showingLiveCompanies, storedCompanyIds } from "./companyLinks.js"

describe("a contact's links to companies", () => {
  it("names each company of a body once, where the client wrote it", () => {
    expect(namedCompanies({ company_id: "comp_b", company_ids: ["comp_a", "comp_b", "comp_a", "comp_c"] })).toEqual([
      { id: "comp_b", path: "company_id" },
      { id: "comp_a", path: "company_ids[0]" },
      { id: "comp_c", path: "company_ids[3]" }
    ])
    expect(namedCompanies({ company_id: null, email: "a@b.co" })).toEqual([])
    expect(namedCompanies(null)).toEqual([])
  })

  it("keeps trashed companies where they stood, the primary first", () => {
    const stored = { company_id: "comp_a", company_ids: ["comp_a", "comp_b", "comp_c"] }
    expect(patchedCompanies({ company_id: "comp_c", company_ids: ["comp_c"] }, stored, new Set(["comp_b"]))).toEqual({
      company_id: "comp_c",
      company_ids: ["comp_c", "comp_b"]
    })
    // A null company_id keeps a primary in the trash (the client was shown null), not a live one.
    expect(patchedCompanies({ company_id: null, company_ids: [] }, stored, new Set(["comp_a"]))).toEqual({
      company_id: "comp_a",
      company_ids: ["comp_a"]
    })
    expect(patchedCompanies({ company_id: null, company_ids: [] }, stored, new Set(["comp_b"]))).toEqual({
      company_id: null,
      company_ids: ["comp_b"]
    })
    // A contact of before has no stored list: nothing to keep.
    expect(patchedCompanies({ company_id: "comp_x", company_ids: ["comp_x"] }, { company_id: "Acme Inc" }, new Set(["Acme Inc"]))).toEqual({
      company_id: "comp_x",
      company_ids: ["comp_x"]
    })
  })

  it("shows live companies in place, company_ids right after company_id", () => {
    const contact = { id: "con_1", company_id: "comp_a", source: null, company_ids: ["comp_a", "comp_b"], created_at: "t" }
    const shown = showingLiveCompanies(contact, new Set(["comp_b"]))
    expect(JSON.stringify(shown)).toBe(
      JSON.stringify({ id: "con_1", company_id: null, company_ids: ["comp_b"], source: null, created_at: "t" })
    )
    expect(showingLiveCompanies(contact, new Set(["comp_a", "comp_b"]))).toEqual(contact)
  })

  it("shows a contact of before (no stored company_ids) with its company_id as stored", () => {
    const legacy = { id: "con_1", company_id: "Acme Inc", source: null }
    expect(storedCompanyIds(legacy)).toBeNull()
    expect(JSON.stringify(showingLiveCompanies(legacy, new Set()))).toBe(
      JSON.stringify({ id: "con_1", company_id: "Acme Inc", company_ids: ["Acme Inc"], source: null })
    )
    expect(showingLiveCompanies({ id: "con_2", company_id: null }, new Set())).toEqual({ id: "con_2", company_id: null, company_ids: [] })
  })
})
