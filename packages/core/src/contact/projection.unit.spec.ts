import { describe, expect, it } from "@effect/vitest"
import type { Projected } from "../decider.js"
import type { ContactEvent } from "./events.js"
import { contactUniqueKey, projectContact } from "./projection.js"

const fold = (events: ReadonlyArray<ContactEvent>): Projected | null => events.reduce<Projected | null>(projectContact, null)

const created: ContactEvent = {
  type: "contact.created",
  data: { id: "con_1", fields: { email: "Ada@Example.com", first_name: "Ada" }, at: "2026-01-01T00:00:00.000Z" }
}

describe("projectContact", () => {
  it("builds the API document with timestamps last", () => {
    const doc = fold([created, { type: "contact.updated", data: { changed: { industry: "saas" }, at: "2026-01-02T00:00:00.000Z" } }])
    expect(doc?.data).toEqual({
      id: "con_1",
      email: "Ada@Example.com",
      first_name: "Ada",
      industry: "saas",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-02T00:00:00.000Z"
    })
    expect(Object.keys(doc?.data ?? {}).slice(-2)).toEqual(["created_at", "updated_at"])
  })

  it("keeps the document through delete and restore and drops it on purge", () => {
    const live = fold([created])
    const deleted = fold([created, { type: "contact.deleted", data: { at: "2026-01-03T00:00:00.000Z" } }])
    expect(deleted).toEqual({ data: live?.data, deletedAt: "2026-01-03T00:00:00.000Z" })
    const restored = fold([
      created,
      { type: "contact.deleted", data: { at: "2026-01-03T00:00:00.000Z" } },
      { type: "contact.restored", data: { at: "2026-01-04T00:00:00.000Z" } }
    ])
    expect(restored).toEqual(live)
    expect(projectContact(deleted, { type: "contact.purged", data: { at: "2026-03-01T00:00:00.000Z" } })).toBeNull()
  })
})

describe("contactUniqueKey", () => {
  it("is the lowercased email while live and nothing once deleted", () => {
    const live = fold([created])
    expect(live && contactUniqueKey(live)).toBe("email:ada@example.com")
    expect(live && contactUniqueKey({ ...live, deletedAt: "2026-01-03T00:00:00.000Z" })).toBeNull()
  })
})
