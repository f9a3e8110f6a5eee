import { describe, expect, it } from "@effect/vitest"
import type { DealEvent } from "../deal/events.js"
import { ACTIVITY_LIMIT, activityFeed, activityOf, type FeedEvent } from "./activity.js"
import type { ContactEvent } from "./events.js"

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`

let sequence = 0
const recorded = (streamId: string, event: ContactEvent | DealEvent): FeedEvent => {
  sequence++
  return {
    event,
    recorded: {
      sequence,
      streamId,
      recordedAt: "2027-01-01T00:00:00.000Z",
      metadata: { workspaceId: "acme", eventId: `evt_${sequence}`, requestId: null, actor: null }
    }
  }
}

describe("activityOf", () => {
  it("shows a contact's events with their data, at the time they record", () => {
    const created = recorded("con_1", { type: "contact.created", data: { id: "con_1", fields: { email: "ada@example.com" }, at: at(1) } })
    expect(activityOf(created)).toEqual({
      id: `act_${created.recorded.sequence}`,
      type: "contact.created",
      occurred_at: at(1),
      data: { email: "ada@example.com" }
    })
    const updated = recorded("con_1", { type: "contact.updated", data: { changed: { title: "CEO" }, at: at(2) } })
    expect(activityOf(updated)?.["data"]).toEqual({ changed_fields: { title: "CEO" } })
    expect(activityOf(recorded("con_1", { type: "contact.deleted", data: { at: at(3) } }))?.["data"]).toEqual({})
  })

  it("shows a deal's creation, updates and stage changes with the deal's id", () => {
    const created = recorded("deal_1", { type: "deal.created", data: { id: "deal_1", fields: { name: "Pilot" }, at: at(1) } })
    expect(activityOf(created)?.["data"]).toEqual({ deal_id: "deal_1", name: "Pilot" })
    const moved = recorded("deal_1", {
      type: "deal.stage_changed",
      data: {
        entry_id: "tle_1",
        from_pipeline_id: "pipe_1",
        to_pipeline_id: "pipe_1",
        from_stage_id: "stage_1",
        to_stage_id: "stage_2",
        reason: null,
        at: at(2)
      }
    })
    expect(activityOf(moved)?.["data"]).toEqual({ deal_id: "deal_1", from_stage_id: "stage_1", to_stage_id: "stage_2", reason: null })
  })

  it("leaves out purges and a deal's deletion and restore", () => {
    for (
      const event of [
        { type: "contact.purged", data: { at: at(1) } },
        { type: "deal.deleted", data: { at: at(1) } },
        { type: "deal.restored", data: { at: at(1) } },
        { type: "deal.purged", data: { at: at(1) } }
      ] as const
    ) expect(activityOf(recorded("deal_1", event))).toBeNull()
  })
})

describe("activityFeed", () => {
  it("lists the newest first by place in the log, across the contact's and its deals' streams", () => {
    const first = recorded("con_1", { type: "contact.created", data: { id: "con_1", fields: {}, at: at(1) } })
    const second = recorded("deal_1", { type: "deal.created", data: { id: "deal_1", fields: {}, at: at(2) } })
    const third = recorded("con_1", { type: "contact.updated", data: { changed: { title: "CEO" }, at: at(3) } })
    expect(activityFeed([first, third, second]).map((activity) => activity["type"])).toEqual([
      "contact.updated",
      "deal.created",
      "contact.created"
    ])
  })

  it("keeps at most the newest ACTIVITY_LIMIT", () => {
    const events = Array.from({ length: ACTIVITY_LIMIT + 5 }, (_, i) =>
      recorded("con_1", { type: "contact.updated", data: { changed: { n: i }, at: at(0) } }))
    const feed = activityFeed(events)
    expect(feed).toHaveLength(ACTIVITY_LIMIT)
    expect(feed[0]?.["data"]).toEqual({ changed_fields: { n: ACTIVITY_LIMIT + 4 } })
  })
})
