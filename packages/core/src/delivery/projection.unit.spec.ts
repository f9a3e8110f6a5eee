import { describe, expect, it } from "@effect/vitest"
import type { Projected } from "../decider.js"
import type { DeliveryEvent } from "./events.js"
import { deliveryView, projectDelivery } from "./projection.js"

const fold = (events: ReadonlyArray<DeliveryEvent>): Projected | null => events.reduce<Projected | null>(projectDelivery, null)

const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-01T00:00:01.000Z"
const t2 = "2026-01-01T00:00:06.000Z"
const scheduled: DeliveryEvent = {
  type: "delivery.scheduled",
  data: {
    id: "dlv_2",
    webhook_id: "wh_1",
    event_id: "evt_1",
    event_type: "deal.created",
    event_stream_id: "deal_1",
    event_version: 1,
    event_created_at: "2025-12-31T23:59:59.000Z",
    payload_data: { deal: { id: "deal_1" } },
    replay_of: "dlv_1",
    at: t0
  }
}
const scheduledKnowing: DeliveryEvent = { ...scheduled, data: { ...scheduled.data, sequence: 42 } } as DeliveryEvent
const failedAttempt: DeliveryEvent = {
  type: "delivery.attempted",
  data: {
    attempt: { attempted_at: t1, status_code: 500, duration_ms: 80, error: "HTTP 500" },
    result: "retrying",
    failure: null,
    next_attempt_at: t2,
    at: t1
  }
}
const success: DeliveryEvent = {
  type: "delivery.attempted",
  data: {
    attempt: { attempted_at: t2, status_code: 200, duration_ms: 30, error: null },
    result: "succeeded",
    failure: null,
    next_attempt_at: null,
    at: t2
  }
}

describe("projectDelivery", () => {
  it("keeps the event's sequence when it was known at scheduling (replay, recovery)", () => {
    expect(fold([scheduledKnowing])?.data["sequence"]).toBe(42)
  })

  it("starts pending and due at once", () => {
    expect(fold([scheduled])).toEqual({
      data: {
        id: "dlv_2",
        webhook_id: "wh_1",
        event_id: "evt_1",
        event_type: "deal.created",
        status: "pending",
        attempt_count: 0,
        next_attempt_at: t0,
        last_attempt_at: null,
        last_status_code: null,
        last_error: null,
        replay_of: "dlv_1",
        created_at: t0,
        attempts: [],
        event_stream_id: "deal_1",
        event_version: 1,
        event_created_at: "2025-12-31T23:59:59.000Z",
        payload_data: { deal: { id: "deal_1" } },
        sequence: null
      },
      deletedAt: null
    })
  })

  it("adds each attempt and keeps the last one's outcome", () => {
    const retrying = fold([scheduled, failedAttempt])?.data
    expect(retrying).toMatchObject({
      status: "pending",
      attempt_count: 1,
      next_attempt_at: t2,
      last_attempt_at: t1,
      last_status_code: 500,
      last_error: "HTTP 500"
    })
    const done = fold([scheduled, failedAttempt, success])?.data
    expect(done).toMatchObject({
      status: "succeeded",
      attempt_count: 2,
      next_attempt_at: null,
      last_attempt_at: t2,
      last_status_code: 200,
      last_error: null,
      attempts: [
        { attempted_at: t1, status_code: 500, duration_ms: 80, error: "HTTP 500" },
        { attempted_at: t2, status_code: 200, duration_ms: 30, error: null }
      ]
    })
  })

  it("turns failed when the attempt says so", () => {
    const gone: DeliveryEvent = {
      type: "delivery.attempted",
      data: { ...success.data, attempt: { ...success.data.attempt, status_code: 410 }, result: "failed", failure: "gone" }
    }
    expect(fold([scheduled, gone])?.data["status"]).toBe("failed")
  })

  it("cancels with nothing left to do", () => {
    const doc = fold([scheduled, failedAttempt, { type: "delivery.cancelled", data: { at: t2 } }])?.data
    expect(doc).toMatchObject({ status: "cancelled", next_attempt_at: null, attempt_count: 1 })
  })
})

describe("deliveryView", () => {
  const data = fold([scheduled, failedAttempt])?.data ?? {}

  it("shows the API fields in order, without the worker's", () => {
    expect(Object.keys(deliveryView(data, { withAttempts: false }))).toEqual([
      "id",
      "webhook_id",
      "event_id",
      "event_type",
      "status",
      "attempt_count",
      "next_attempt_at",
      "last_attempt_at",
      "last_status_code",
      "last_error",
      "replay_of",
      "created_at"
    ])
  })

  it("adds the attempts when asked", () => {
    const view = deliveryView(data, { withAttempts: true })
    expect(Object.keys(view).at(-1)).toBe("attempts")
    expect(view["attempts"]).toEqual([{ attempted_at: t1, status_code: 500, duration_ms: 80, error: "HTTP 500" }])
    expect(view).not.toHaveProperty("payload_data")
  })
})
