import { describe, expect, it } from "@effect/vitest"
import type { Projected } from "../decider.js"
import type { DealEvent } from "./events.js"
import { projectDeal, timelineEntryOf } from "./projection.js"

const created: DealEvent = {
  type: "deal.created",
  data: {
    id: "deal_1",
    fields: {
      name: "Deal",
      pipeline_id: "pipe_a",
      stage_id: "a1",
      value: null,
      currency: null,
      expected_close_date: null,
      owner_id: null,
      contact_ids: [],
      status: "open"
    },
    at: "2026-01-01T00:00:00.000Z"
  }
}
const stageChanged: DealEvent = {
  type: "deal.stage_changed",
  data: {
    entry_id: "tle_1",
    from_pipeline_id: "pipe_a",
    to_pipeline_id: "pipe_b",
    from_stage_id: "a1",
    to_stage_id: "b1",
    reason: "handover",
    at: "2026-01-02T00:00:00.000Z"
  }
}

// A move recorded since deals close by their stage: it carries the closing it leaves.
const lost: DealEvent = {
  type: "deal.stage_changed",
  data: {
    ...stageChanged.data,
    entry_id: "tle_2",
    from_pipeline_id: "pipe_b",
    from_stage_id: "b1",
    to_stage_id: "b9",
    reason: "budget",
    from_status: "open",
    to_status: "lost",
    closed_at: "2026-01-03T00:00:00.000Z",
    lost_reason: "budget",
    at: "2026-01-03T00:00:00.000Z"
  }
}

describe("projectDeal", () => {
  it("moves the deal, notes when it entered the stage and touches updated_at on a stage change", () => {
    const doc = [created, stageChanged].reduce<Projected | null>(projectDeal, null)
    expect(doc?.data).toEqual({
      id: "deal_1",
      ...created.data.fields,
      pipeline_id: "pipe_b",
      stage_id: "b1",
      stage_entered_at: "2026-01-02T00:00:00.000Z",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-02T00:00:00.000Z"
    })
  })
  it("takes the closing a move carries; a move recorded before closing existed leaves it", () => {
    const doc = [created, stageChanged, lost].reduce<Projected | null>(projectDeal, null)
    expect(doc?.data).toMatchObject({
      stage_id: "b9",
      status: "lost",
      closed_at: "2026-01-03T00:00:00.000Z",
      lost_reason: "budget",
      stage_entered_at: "2026-01-03T00:00:00.000Z"
    })
  })
  it("drops the document on purge", () => {
    expect(projectDeal([created].reduce<Projected | null>(projectDeal, null), { type: "deal.purged", data: { at: "x" } })).toBeNull()
  })
})

describe("timelineEntryOf", () => {
  it("turns a stage change into an entry and nothing else into one", () => {
    expect(timelineEntryOf("deal_1", stageChanged)).toEqual({
      id: "tle_1",
      deal_id: "deal_1",
      from_stage_id: "a1",
      to_stage_id: "b1",
      from_status: null,
      to_status: null,
      reason: "handover",
      changed_at: "2026-01-02T00:00:00.000Z"
    })
    expect(timelineEntryOf("deal_1", lost)).toMatchObject({ from_status: "open", to_status: "lost" })
    expect(timelineEntryOf("deal_1", created)).toBeNull()
  })
})
