import { describe, expect, it } from "@effect/vitest"
import type { ContactEvent } from "../contact/index.js"
import { projectContact } from "../contact/index.js"
import type { StoredEvent } from "../storage/events.js"
import { recordAsOf } from "./recordAsOf.js"

const stored = (event: ContactEvent, n: number): StoredEvent => ({
  ...event,
  metadata: { workspaceId: "ws", eventId: `evt_${n}`, requestId: null, actor: null },
  sequence: n,
  streamId: "con_1",
  streamVersion: n,
  recordedAt: "2030-01-01T00:00:00.000Z"
})

const events: ReadonlyArray<ContactEvent> = [
  { type: "contact.created", data: { id: "con_1", fields: { email: "a@x.io", title: null }, at: "2026-01-01T00:00:00.000Z" } },
  { type: "contact.updated", data: { changed: { title: "CTO" }, at: "2026-01-02T00:00:00.000Z" } },
  { type: "contact.deleted", data: { at: "2026-01-03T00:00:00.000Z" } }
]
const stream = events.map((event, i) => ({ event, recorded: stored(event, i + 1) }))

describe("recordAsOf", () => {
  it("folds the events up to the instant, inclusive, with the version then", () => {
    const at = (instant: string) => {
      const { record, version } = recordAsOf(stream, projectContact, instant)
      return [record?.data["title"] ?? null, record?.deletedAt ?? null, version]
    }
    expect(recordAsOf(stream, projectContact, "2025-12-31T23:59:59.999Z")).toEqual({ record: null, version: 0 })
    expect(at("2026-01-01T00:00:00.000Z")).toEqual([null, null, 1])
    expect(at("2026-01-02T12:00:00.000Z")).toEqual(["CTO", null, 2])
    expect(at("2026-01-03T00:00:00.000Z")).toEqual(["CTO", "2026-01-03T00:00:00.000Z", 3])
  })
})
