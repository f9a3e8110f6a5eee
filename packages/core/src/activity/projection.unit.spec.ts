import { describe, expect, it } from "@effect/vitest"
import type { Projected } from "../decider.js"
import type { ActivityEvent } from "./events.js"
import { projectActivity } from "./projection.js"

const fold = (events: ReadonlyArray<ActivityEvent>): Projected | null => events.reduce<Projected | null>(projectActivity, null)

const created: ActivityEvent = {
  type: "activity.created",
  data: {
    id: "act_1",
    fields: { type: "call", subject: "Intro", due_at: null, done_at: null, contact_ids: ["con_a"] },
    at: "2026-01-01T00:00:00.000Z"
  }
}
const deletedAt = "2026-01-03T00:00:00.000Z"

describe("projectActivity", () => {
  it("builds the stored document with the timestamps last, custom keys added later before them", () => {
    const doc = fold([
      created,
      {
        type: "activity.updated",
        data: { changed: { outcome: "won", done_at: "2026-01-02T00:00:00.000Z" }, at: "2026-01-02T00:00:00.000Z" }
      }
    ])
    expect(doc?.data).toEqual({
      id: "act_1",
      type: "call",
      subject: "Intro",
      due_at: null,
      done_at: "2026-01-02T00:00:00.000Z",
      contact_ids: ["con_a"],
      outcome: "won",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-02T00:00:00.000Z"
    })
    expect(Object.keys(doc?.data ?? {})).toEqual([
      "id",
      "type",
      "subject",
      "due_at",
      "done_at",
      "contact_ids",
      "outcome",
      "created_at",
      "updated_at"
    ])
  })

  it("keeps the document through delete and restore and drops it on purge", () => {
    const live = fold([created])
    const deleted = fold([created, { type: "activity.deleted", data: { at: deletedAt } }])
    expect(deleted).toEqual({ data: live?.data, deletedAt })
    expect(
      fold([
        created,
        { type: "activity.deleted", data: { at: deletedAt } },
        { type: "activity.restored", data: { at: "2026-01-04T00:00:00.000Z" } }
      ])
    ).toEqual(live)
    expect(projectActivity(deleted, { type: "activity.purged", data: { at: "2026-03-01T00:00:00.000Z" } })).toBeNull()
  })
})
