import type { JsonObject } from "../json.js"
import type { DomainEvent } from "../storage/events.js"

/**
 * One event to send to one webhook. The payload's `data` is frozen here, so every retry and replay
 * sends the same document; `sequence` is not known until the event is committed, so the stream
 * position of the event is kept to look it up.
 */
export type DeliveryScheduled = DomainEvent<"delivery.scheduled", {
  readonly id: string
  readonly webhook_id: string
  readonly event_id: string
  readonly event_type: string
  readonly event_stream_id: string
  readonly event_version: number
  readonly event_created_at: string
  readonly payload_data: JsonObject
  /** The delivery this one replays, or null for the first delivery of the event. */
  readonly replay_of: string | null
  readonly at: string
}>

export type DeliveryAttempt = {
  readonly attempted_at: string
  /** null: no answer (timeout, refused connection, TLS failure…). */
  readonly status_code: number | null
  readonly duration_ms: number
  readonly error: string | null
}

/** `retrying`: the delivery stays pending until `next_attempt_at`. */
export type DeliveryResult = "succeeded" | "retrying" | "failed"
/** Why a delivery failed for good; either one fails its webhook too. */
export type DeliveryFailure = "gone" | "exhausted"

export type DeliveryAttempted = DomainEvent<"delivery.attempted", {
  readonly attempt: DeliveryAttempt
  readonly result: DeliveryResult
  readonly failure: DeliveryFailure | null
  readonly next_attempt_at: string | null
  readonly at: string
}>

export type DeliveryCancelled = DomainEvent<"delivery.cancelled", { readonly at: string }>

export type DeliveryEvent = DeliveryScheduled | DeliveryAttempted | DeliveryCancelled
