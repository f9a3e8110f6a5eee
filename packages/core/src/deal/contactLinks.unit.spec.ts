import { describe, expect, it } from "@effect/vitest"
import { patchedContactIds, showingLiveContacts } from "./contactLinks.js"

describe("a deal's links to contacts", () => {
  it("shows only live contacts, keeping every other key and the key order", () => {
    const deal = { id: "deal_1", name: "x", contact_ids: ["con_a", "con_b", "con_c"], status: "open" }
    const shown = showingLiveContacts(deal, new Set(["con_c", "con_a"]))
    expect(shown).toEqual({ id: "deal_1", name: "x", contact_ids: ["con_a", "con_c"], status: "open" })
    expect(Object.keys(shown)).toEqual(Object.keys(deal))
    expect(showingLiveContacts(deal, new Set(["con_a", "con_b", "con_c"]))).toBe(deal)
    expect(showingLiveContacts({ id: "deal_2" }, new Set())).toEqual({ id: "deal_2" })
  })

  it("keeps trashed links after the element they followed when contact_ids is patched", () => {
    const trashed = new Set(["con_b", "con_d"])
    const stored = ["con_a", "con_b", "con_c", "con_d"]
    // The client saw [a, c]: sending it back stores what was there.
    expect(patchedContactIds(["con_a", "con_c"], stored, trashed)).toEqual(stored)
    expect(patchedContactIds(["con_c"], stored, trashed)).toEqual(["con_b", "con_c", "con_d"])
    expect(patchedContactIds([], stored, trashed)).toEqual(["con_b", "con_d"])
    expect(patchedContactIds(["con_e", "con_a"], stored, trashed)).toEqual(["con_e", "con_a", "con_b", "con_d"])
    // Live links the client left out are dropped; so are ids that are not trashed (unknown, purged).
    expect(patchedContactIds(["con_e"], ["con_a", "con_x"], trashed)).toEqual(["con_e"])
  })
})
