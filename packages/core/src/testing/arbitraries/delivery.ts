import * as fc from "fast-check"
import type { Projected } from "../../decider.js"
import { deliveryAggregate } from "../../delivery/aggregate.js"
import type { CancelDelivery, DeliveryCommand, RecordAttempt, ScheduleDelivery } from "../../delivery/commands.js"
import type { DeliveryAttempted, DeliveryEvent, DeliveryScheduled } from "../../delivery/events.js"
import { DEFAULT_RETRY_SCHEDULE } from "../../delivery/schedule.js"
import { WEBHOOK_EVENT_TYPES } from "../../webhook/eventTypes.js"
import { traceCommands } from "../trace.js"
import { idOf, instant, streamScript } from "./common.js"
import { dealDocument } from "./deal.js"

const deliveryId = idOf("dlv")

export const scheduleDelivery: fc.Arbitrary<ScheduleDelivery> = fc
  .record({
    id: deliveryId,
    at: instant,
    webhookId: idOf("wh"),
    eventId: idOf("evt"),
    eventType: fc.constantFrom(...WEBHOOK_EVENT_TYPES),
    eventStreamId: idOf("deal"),
    eventVersion: fc.integer({ min: 1, max: 50 }),
    eventCreatedAt: instant,
    payloadData: dealDocument.map((doc) => ({ deal: doc.data })),
    replayOf: fc.option(deliveryId, { nil: null, freq: 4 })
  })
  .map((c) => ({ type: "ScheduleDelivery", ...c }))

/**
 * An answer as the worker records it: successes, 410, 429/503 with a Retry-After, other failures
 * and no answer at all, with the engine's jitter and a retry schedule.
 */
export const recordAttempt: fc.Arbitrary<RecordAttempt> = fc
  .record({
    id: deliveryId,
    at: instant,
    answer: fc.oneof(
      { arbitrary: fc.record({ statusCode: fc.integer({ min: 200, max: 299 }), retryAfterSeconds: fc.constant(null) }), weight: 1 },
      { arbitrary: fc.record({ statusCode: fc.constant(410), retryAfterSeconds: fc.constant(null) }), weight: 1 },
      {
        arbitrary: fc.record({
          statusCode: fc.constantFrom<number | null>(429, 503, 500, 502, 404, 301, null),
          retryAfterSeconds: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null })
        }),
        weight: 6
      }
    ),
    durationMs: fc.integer({ min: 0, max: 15_000 }),
    jitter: fc.double({ min: -1, max: 1, noNaN: true }),
    schedule: fc.oneof(fc.constant(DEFAULT_RETRY_SCHEDULE), fc.array(fc.integer({ min: 1, max: 10_000_000 }), { maxLength: 8 }))
  })
  .map(({ answer, ...c }) => ({
    type: "RecordAttempt",
    ...c,
    ...answer,
    error: answer.statusCode === null ? "connection refused" : null
  }))

export const cancelDelivery: fc.Arbitrary<CancelDelivery> = fc
  .record({ id: deliveryId, at: instant })
  .map((c) => ({ type: "CancelDelivery", ...c }))

/** One delivery: scheduled, then attempts (mostly) and perhaps a cancellation, until it settles. */
export const deliveryScript: fc.Arbitrary<ReadonlyArray<DeliveryCommand>> = scheduleDelivery.chain((schedule) =>
  streamScript<DeliveryCommand>(
    fc.constant(schedule),
    fc.oneof({ arbitrary: recordAttempt, weight: 12 }, { arbitrary: cancelDelivery, weight: 1 }).map((c) => ({ ...c, id: schedule.id })),
    12
  )
)

export const deliveryHistory: fc.Arbitrary<ReadonlyArray<DeliveryEvent>> = deliveryScript.map(
  (s) => traceCommands(deliveryAggregate, s).history
)

export const deliveryScheduled: fc.Arbitrary<DeliveryScheduled> = scheduleDelivery.map((c) => ({
  type: "delivery.scheduled",
  data: {
    id: c.id,
    webhook_id: c.webhookId,
    event_id: c.eventId,
    event_type: c.eventType,
    event_stream_id: c.eventStreamId,
    event_version: c.eventVersion,
    event_created_at: c.eventCreatedAt,
    payload_data: c.payloadData,
    replay_of: c.replayOf,
    at: c.at
  }
}))

/** An attempt's event as the decider judges it (result, failure and next attempt agree with the schedule). */
export const deliveryAttempted: fc.Arbitrary<DeliveryAttempted> = deliveryHistory
  .map((h) => h.filter((e): e is DeliveryAttempted => e.type === "delivery.attempted"))
  .filter((attempts) => attempts.length > 0)
  .chain((attempts) => fc.constantFrom(...attempts))

const deliveryCancelled = instant.map((at) => ({ type: "delivery.cancelled" as const, data: { at } }))

export const deliveryDocument: fc.Arbitrary<Projected> = deliveryScript.map((s) => traceCommands(deliveryAggregate, s).document!)

export const deliveryArbitraries = {
  commands: { ScheduleDelivery: scheduleDelivery, RecordAttempt: recordAttempt, CancelDelivery: cancelDelivery },
  command: fc.oneof(scheduleDelivery, recordAttempt, cancelDelivery) as fc.Arbitrary<DeliveryCommand>,
  script: deliveryScript,
  history: deliveryHistory,
  events: {
    "delivery.scheduled": deliveryScheduled,
    "delivery.attempted": deliveryAttempted,
    "delivery.cancelled": deliveryCancelled
  },
  event: fc.oneof(deliveryScheduled, deliveryAttempted, deliveryCancelled) as fc.Arbitrary<DeliveryEvent>,
  document: deliveryDocument
}
