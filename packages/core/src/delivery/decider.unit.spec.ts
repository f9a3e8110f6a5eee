import { describe, expect, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import type { RecordAttempt } from "./commands.js"
import { deliveryDecider } from "./decider.js"
import type { DeliveryEvent } from "./events.js"

const given = DeciderSpecification.for(deliveryDecider)

const id = "dlv_1"
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-01T00:00:10.000Z"
const schedule = [5_000, 60_000]

const scheduled: DeliveryEvent = {
  type: "delivery.scheduled",
  data: {
    id,
    webhook_id: "wh_1",
    event_id: "evt_1",
    event_type: "deal.created",
    event_stream_id: "deal_1",
    event_version: 1,
    event_created_at: t0,
    payload_data: { deal: { id: "deal_1" } },
    replay_of: null,
    at: t0
  }
}

const attempt = (fields: Partial<RecordAttempt> = {}): RecordAttempt => ({
  type: "RecordAttempt",
  id,
  at: t1,
  statusCode: 500,
  durationMs: 120,
  error: null,
  retryAfterSeconds: null,
  jitter: 0,
  schedule,
  ...fields
})

const attempted = (
  statusCode: number | null,
  result: "succeeded" | "retrying" | "failed",
  next: string | null,
  failure: "gone" | "exhausted" | null = null,
  error: string | null = null
): DeliveryEvent => ({
  type: "delivery.attempted",
  data: {
    attempt: { attempted_at: t1, status_code: statusCode, duration_ms: 120, error },
    result,
    failure,
    next_attempt_at: next,
    at: t1
  }
})

const retried = attempted(500, "retrying", "2026-01-01T00:00:15.000Z")
const succeeded = attempted(200, "succeeded", null)
const cancelled: DeliveryEvent = { type: "delivery.cancelled", data: { at: t1 } }

describe("deliveryDecider", () => {
  describe("ScheduleDelivery", () => {
    const schedule = {
      type: "ScheduleDelivery",
      id,
      at: t0,
      webhookId: "wh_1",
      eventId: "evt_1",
      eventType: "deal.created",
      eventStreamId: "deal_1",
      eventVersion: 1,
      eventCreatedAt: t0,
      payloadData: { deal: { id: "deal_1" } },
      replayOf: null
    } as const
    it("records the delivery with its frozen payload data", () => {
      given([]).when(schedule).then([scheduled])
    })
    it("records what it replays", () => {
      given([])
        .when({ ...schedule, replayOf: "dlv_0" })
        .then([{ ...scheduled, data: { ...scheduled.data, replay_of: "dlv_0" } }])
    })
    it("refuses an id that is already taken", () => {
      given([scheduled]).when(schedule).thenFails("Conflict")
    })
  })

  describe("RecordAttempt", () => {
    it("succeeds on any 2xx", () => {
      given([scheduled])
        .when(attempt({ statusCode: 200 }))
        .then([succeeded])
      given([scheduled])
        .when(attempt({ statusCode: 299 }))
        .then([attempted(299, "succeeded", null)])
    })
    it("fails for good on 410 Gone, whatever is left of the schedule", () => {
      given([scheduled])
        .when(attempt({ statusCode: 410 }))
        .then([attempted(410, "failed", null, "gone")])
    })
    it("retries after the scheduled delay with its jitter", () => {
      given([scheduled]).when(attempt()).then([retried])
      given([scheduled])
        .when(attempt({ jitter: 1 }))
        .then([attempted(500, "retrying", "2026-01-01T00:00:16.000Z")])
      given([scheduled])
        .when(attempt({ jitter: -0.5 }))
        .then([attempted(500, "retrying", "2026-01-01T00:00:14.500Z")])
    })
    it("retries an attempt that got no answer, and a redirect", () => {
      given([scheduled])
        .when(attempt({ statusCode: null, error: "timeout after 15000ms" }))
        .then([attempted(null, "retrying", "2026-01-01T00:00:15.000Z", null, "timeout after 15000ms")])
      given([scheduled])
        .when(attempt({ statusCode: 301 }))
        .then([attempted(301, "retrying", "2026-01-01T00:00:15.000Z")])
    })
    it("takes the next delay of the schedule for the next retry", () => {
      given([scheduled, retried])
        .when(attempt())
        .then([attempted(500, "retrying", "2026-01-01T00:01:10.000Z")])
    })
    it("fails as exhausted once every retry of the schedule was used", () => {
      given([scheduled, retried, retried])
        .when(attempt())
        .then([attempted(500, "failed", null, "exhausted")])
      given([scheduled])
        .when(attempt({ schedule: [] }))
        .then([attempted(500, "failed", null, "exhausted")])
    })
    it("still succeeds on the last attempt", () => {
      given([scheduled, retried, retried])
        .when(attempt({ statusCode: 204 }))
        .then([attempted(204, "succeeded", null)])
    })
    it("honours Retry-After on 429 and 503, clamped to between the delay and twice it", () => {
      given([scheduled])
        .when(attempt({ statusCode: 429, retryAfterSeconds: 7 }))
        .then([attempted(429, "retrying", "2026-01-01T00:00:17.000Z")])
      given([scheduled])
        .when(attempt({ statusCode: 503, retryAfterSeconds: 3600 }))
        .then([attempted(503, "retrying", "2026-01-01T00:00:20.000Z")])
      // A shorter Retry-After than the jittered delay keeps the delay, never less than the schedule.
      given([scheduled])
        .when(attempt({ statusCode: 503, retryAfterSeconds: 1, jitter: -1 }))
        .then([attempted(503, "retrying", "2026-01-01T00:00:15.000Z")])
      given([scheduled])
        .when(attempt({ statusCode: 429, retryAfterSeconds: 1, jitter: 0.5 }))
        .then([attempted(429, "retrying", "2026-01-01T00:00:15.500Z")])
    })
    it("ignores Retry-After on other statuses", () => {
      given([scheduled])
        .when(attempt({ statusCode: 500, retryAfterSeconds: 3600 }))
        .then([retried])
    })
    it("is a conflict once the delivery succeeded, failed or was cancelled", () => {
      given([scheduled, succeeded]).when(attempt()).thenFails("Conflict")
      given([scheduled, attempted(410, "failed", null, "gone")])
        .when(attempt())
        .thenFails("Conflict")
      given([scheduled, cancelled]).when(attempt()).thenFails("Conflict")
    })
    it("is not found on an absent delivery", () => {
      given([])
        .when(attempt())
        .thenFails("NotFound", (e) => expect(e.resource).toBe("delivery"))
    })
  })

  describe("CancelDelivery", () => {
    it("cancels a pending delivery, retried or not", () => {
      given([scheduled]).when({ type: "CancelDelivery", id, at: t1 }).then([cancelled])
      given([scheduled, retried]).when({ type: "CancelDelivery", id, at: t1 }).then([cancelled])
    })
    it("changes nothing once the delivery settled", () => {
      given([scheduled, succeeded]).when({ type: "CancelDelivery", id, at: t1 }).thenNothingHappens()
      given([scheduled, attempted(410, "failed", null, "gone")])
        .when({ type: "CancelDelivery", id, at: t1 })
        .thenNothingHappens()
      given([scheduled, cancelled]).when({ type: "CancelDelivery", id, at: t1 }).thenNothingHappens()
    })
    it("is not found on an absent delivery", () => {
      given([]).when({ type: "CancelDelivery", id, at: t1 }).thenFails("NotFound")
    })
  })
})
