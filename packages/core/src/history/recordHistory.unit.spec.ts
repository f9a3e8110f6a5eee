import { describe, expect, it } from "@effect/vitest"
import type { ContactEvent } from "../contact/index.js"
import { projectContact } from "../contact/index.js"
import { catalogOf } from "../query/fields.js"
import type { StoredEvent } from "../storage/events.js"
import { fieldChanges, recordHistory } from "./recordHistory.js"

const catalog = catalogOf("contact", [])
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"

const stored = (event: ContactEvent, n: number, actor: string | null): StoredEvent => ({
  ...event,
  metadata: { workspaceId: "ws", eventId: `evt_${n}`, requestId: `req_${n}`, actor },
  sequence: n,
  streamId: "con_1",
  streamVersion: n,
  recordedAt: "2026-02-01T00:00:00.000Z"
})

describe("fieldChanges", () => {
  it("lists the compared fields whose values differ, in the catalog's order, timestamps aside", () => {
    expect(
      fieldChanges({ email: "a@x.io", title: null, updated_at: t0 }, { email: "a@x.io", title: "CTO", updated_at: t1 }, catalog)
    ).toEqual([{ field: "title", from: null, to: "CTO" }])
    expect(fieldChanges(null, { email: "a@x.io", updated_at: t1 }, catalog)).toEqual([{ field: "email", from: null, to: "a@x.io" }])
    expect(fieldChanges({ email: "a@x.io" }, { email: "a@x.io" }, catalog)).toEqual([])
  })
})

describe("recordHistory", () => {
  it("projects the record before and after each event, with who and when", () => {
    const created: ContactEvent = { type: "contact.created", data: { id: "con_1", fields: { email: "a@x.io", first_name: "Ada" }, at: t0 } }
    const updated: ContactEvent = { type: "contact.updated", data: { changed: { title: "CTO" }, at: t1 } }
    const projected = [projectContact(null, created)]
    // The fixture's events must be ones the projection understands, or the test proves nothing.
    expect(projected[0]?.data["email"]).toBe("a@x.io")
    const history = recordHistory(
      [
        { event: created, recorded: stored(created, 1, "key_0123456789ab") },
        { event: updated, recorded: stored(updated, 2, "system:purge") }
      ],
      projectContact,
      (data) => data,
      catalog
    )
    expect(history.map((entry) => [entry.event_id, entry.type, entry.at, entry.actor, entry.request_id])).toEqual([
      ["evt_1", "contact.created", t0, { api_key_id: "key_0123456789ab" }, "req_1"],
      ["evt_2", "contact.updated", t1, null, "req_2"]
    ])
    expect(history[0]!.changes.map((c) => c.field)).toEqual(["id", "email", "first_name"])
    expect(history[1]!.changes).toEqual([{ field: "title", from: null, to: "CTO" }])
  })
})
