import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/**
 * One event to send to one webhook. The payload's `data` is frozen here, so every retry and replay
 * sends the same document. `sequence` is there when it was known at scheduling (replay, recovery);
 * a delivery scheduled in its event's own commit has only the event's stream position, and the
 * queue's first claim of it stores the sequence on the document.
 */
export const DeliveryScheduled = DomainEvent("delivery.scheduled", {
  id: Schema.String,
  webhook_id: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  event_stream_id: Schema.String,
  event_version: Schema.Number,
  event_created_at: Schema.String,
  payload_data: Schema.JsonObject,
  /** The delivery this one replays, or null for the first delivery of the event. */
  replay_of: Schema.NullOr(Schema.String),
  sequence: Schema.optionalKey(Schema.Number),
  at: Schema.String
})
export type DeliveryScheduled = typeof DeliveryScheduled.Type

export const DeliveryAttempt = Schema.Struct({
  attempted_at: Schema.String,
  /** null: no answer (timeout, refused connection, TLS failure…). */
  status_code: Schema.NullOr(Schema.Number),
  duration_ms: Schema.Number,
  error: Schema.NullOr(Schema.String)
})
export type DeliveryAttempt = typeof DeliveryAttempt.Type

/** `retrying`: the delivery stays pending until `next_attempt_at`. */
export const DeliveryResult = Schema.Literals(["succeeded", "retrying", "failed"])
export type DeliveryResult = typeof DeliveryResult.Type

/** Why a delivery failed for good; either one fails its webhook too. */
export const DeliveryFailure = Schema.Literals(["gone", "exhausted"])
export type DeliveryFailure = typeof DeliveryFailure.Type

export const DeliveryAttempted = DomainEvent("delivery.attempted", {
  attempt: DeliveryAttempt,
  result: DeliveryResult,
  failure: Schema.NullOr(DeliveryFailure),
  next_attempt_at: Schema.NullOr(Schema.String),
  at: Schema.String
})
export type DeliveryAttempted = typeof DeliveryAttempted.Type

export const DeliveryCancelled = DomainEvent("delivery.cancelled", { at: Schema.String })
export type DeliveryCancelled = typeof DeliveryCancelled.Type

export const DeliveryEvent = Schema.Union([DeliveryScheduled, DeliveryAttempted, DeliveryCancelled])
export type DeliveryEvent = typeof DeliveryEvent.Type
