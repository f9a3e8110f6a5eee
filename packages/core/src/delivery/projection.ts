import { Schema } from "effect"
import type { Projected } from "../decider.js"
import type { Json, JsonObject } from "../json.js"
import { DeliveryAttempt, type DeliveryEvent } from "./events.js"

/**
 * The delivery document: the API fields, then what a worker needs to send it again (the event's
 * position, for its `sequence`, and the payload data). Deliveries are never deleted.
 */
export const projectDelivery = (doc: Projected | null, event: DeliveryEvent): Projected | null => {
  switch (event.type) {
    case "delivery.scheduled": {
      const { at, ...d } = event.data
      const data: JsonObject = {
        id: d.id,
        webhook_id: d.webhook_id,
        event_id: d.event_id,
        event_type: d.event_type,
        status: "pending",
        attempt_count: 0,
        next_attempt_at: at,
        last_attempt_at: null,
        last_status_code: null,
        last_error: null,
        replay_of: d.replay_of,
        created_at: at,
        attempts: [],
        event_stream_id: d.event_stream_id,
        event_version: d.event_version,
        event_created_at: d.event_created_at,
        payload_data: d.payload_data,
        sequence: d.sequence ?? null
      }
      return { data, deletedAt: null }
    }
    case "delivery.attempted": {
      if (doc === null) return null
      const { attempt, next_attempt_at, result } = event.data
      const attempts = doc.data["attempts"]
      const count = doc.data["attempt_count"]
      return {
        ...doc,
        data: {
          ...doc.data,
          status: result === "retrying" ? "pending" : result,
          attempt_count: (typeof count === "number" ? count : 0) + 1,
          next_attempt_at,
          last_attempt_at: attempt.attempted_at,
          last_status_code: attempt.status_code,
          last_error: attempt.error,
          attempts: [...(Array.isArray(attempts) ? attempts : []), attempt]
        }
      }
    }
    case "delivery.cancelled":
      return doc === null ? null : { ...doc, data: { ...doc.data, status: "cancelled", next_attempt_at: null } }
  }
}

/** The delivery document as projectDelivery writes it: what workers and replays read back. */
export const DeliveryDocument = Schema.Struct({
  id: Schema.String,
  webhook_id: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  status: Schema.Literals(["pending", "succeeded", "failed", "cancelled"]),
  attempt_count: Schema.Number,
  next_attempt_at: Schema.NullOr(Schema.String),
  last_attempt_at: Schema.NullOr(Schema.String),
  last_status_code: Schema.NullOr(Schema.Number),
  last_error: Schema.NullOr(Schema.String),
  replay_of: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  attempts: Schema.Array(DeliveryAttempt),
  event_stream_id: Schema.String,
  event_version: Schema.Number,
  event_created_at: Schema.String,
  payload_data: Schema.JsonObject,
  /** The event's position in the log; null (or absent, on documents older than the field) until the queue's first claim. */
  sequence: Schema.optionalKey(Schema.NullOr(Schema.Number))
})
export type DeliveryDocument = typeof DeliveryDocument.Type

const API_KEYS = [
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
] as const

/** The delivery as the API returns it; the attempts only on the single-delivery GET. */
export const deliveryView = (data: JsonObject, options: { readonly withAttempts: boolean }): JsonObject => {
  const view: Record<string, Json> = {}
  for (const key of API_KEYS) view[key] = data[key] ?? null
  if (options.withAttempts) view["attempts"] = data["attempts"] ?? []
  return view
}
