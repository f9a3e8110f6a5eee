import { describe, expect, it } from "@effect/vitest"
import { filterLinks, isLinked, joinLinks, linksOf, type LinkSets, showingLiveLinks } from "./links.js"

const live = (contacts: Array<string>, deals: Array<string> = [], companies: Array<string> = []): LinkSets => ({
  contact_ids: new Set(contacts),
  deal_ids: new Set(deals),
  company_ids: new Set(companies)
})

describe("an activity's links", () => {
  it("shows only live records in each list, every other key and the key order as stored", () => {
    const activity = { id: "act_1", contact_ids: ["con_a", "con_b"], subject: "x", deal_ids: ["deal_a"], company_ids: ["comp_a"] }
    const shown = showingLiveLinks(activity, live(["con_b"], [], ["comp_a"]))
    expect(shown).toEqual({ id: "act_1", contact_ids: ["con_b"], subject: "x", deal_ids: [], company_ids: ["comp_a"] })
    expect(Object.keys(shown)).toEqual(Object.keys(activity))
    expect(showingLiveLinks(activity, live(["con_a", "con_b"], ["deal_a"], ["comp_a"]))).toBe(activity)
  })

  it("counts a link to any record, trashed ones included (the stored lists)", () => {
    expect(isLinked({ contact_ids: [], deal_ids: [], company_ids: [] })).toBe(false)
    expect(isLinked({ contact_ids: [], deal_ids: [], company_ids: ["comp_a"] })).toBe(true)
    expect(isLinked({})).toBe(false)
  })

  it("gathers, filters and joins the ids of each list", () => {
    const ids = linksOf([
      { contact_ids: ["con_a"], deal_ids: ["deal_a"] },
      { contact_ids: ["con_b"], company_ids: "not a list" }
    ])
    expect(ids).toEqual({ contact_ids: ["con_a", "con_b"], deal_ids: ["deal_a"], company_ids: [] })
    expect(filterLinks(ids, (link, id) => link === "contact_ids" && id !== "con_a")).toEqual({
      contact_ids: ["con_b"],
      deal_ids: [],
      company_ids: []
    })
    expect(joinLinks(ids, linksOf([{ deal_ids: ["deal_b"] }]))).toEqual({
      contact_ids: ["con_a", "con_b"],
      deal_ids: ["deal_a", "deal_b"],
      company_ids: []
    })
  })
})
