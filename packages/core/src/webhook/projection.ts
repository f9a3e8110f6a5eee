import { Schema } from "effect"
import type { Projected } from "../decider.js"
import type { Json, JsonObject } from "../json.js"
import { WEBHOOK_ALL_EVENTS } from "./eventTypes.js"
import { PreviousSecret, type WebhookEvent } from "./events.js"

/** The document with these changes at `at`, less the `dropped` keys. */
const touched = (doc: Projected, changes: JsonObject, at: string, dropped: ReadonlyArray<string> = []): Projected => {
  const kept = dropped.length === 0 ? doc.data : Object.fromEntries(Object.entries(doc.data).filter(([key]) => !dropped.includes(key)))
  return { ...doc, data: { ...kept, ...changes, updated_at: at } }
}

const OF_THE_OLD_SECRET = ["secret_standard", "previous_secret"]

/**
 * The webhook document. It keeps `secret`, which workers need to sign; `webhookView` strips it
 * before anything reaches the API. Webhooks have no trash: deleted means gone from every view.
 */
export const projectWebhook = (doc: Projected | null, event: WebhookEvent): Projected | null => {
  switch (event.type) {
    case "webhook.created": {
      const { at, events, id, secret, secret_standard, url } = event.data
      const data: JsonObject = {
        id,
        url,
        events,
        status: "active",
        has_secret: secret !== null,
        secret,
        ...(secret_standard === true ? { secret_standard } : {}),
        created_at: at,
        updated_at: at
      }
      return { data, deletedAt: null }
    }
    case "webhook.updated": {
      if (doc === null) return null
      const { at, changed } = event.data
      if (changed.secret === undefined) return touched(doc, changed, at)
      // A new secret ends what belonged to the old one: its form, and any earlier overlap.
      return touched(doc, { ...changed, has_secret: changed.secret !== null }, at, OF_THE_OLD_SECRET)
    }
    case "webhook.reactivated":
      return doc === null ? null : touched(doc, { status: "active" }, event.data.at)
    case "webhook.failed":
      return doc === null ? null : touched(doc, { status: "failed" }, event.data.at)
    case "webhook.deleted":
      return null
    case "webhook.recovery_started":
      return doc === null ? null : touched(doc, { recovery: { id: event.data.job_id, since: event.data.since } }, event.data.at)
    case "webhook.recovery_ended":
      return doc === null ? null : touched(doc, {}, event.data.at, ["recovery"])
  }
}

/** The webhook document as projectWebhook writes it: what workers read back (the URL and the secret). */
export const WebhookDocument = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  status: Schema.Literals(["active", "failed"]),
  has_secret: Schema.Boolean,
  secret: Schema.NullOr(Schema.String),
  secret_standard: Schema.optionalKey(Schema.Boolean),
  previous_secret: Schema.optionalKey(PreviousSecret),
  /** The recovery job running for it, which any host's runner finds by this key. */
  recovery: Schema.optionalKey(Schema.Struct({ id: Schema.String, since: Schema.String })),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type WebhookDocument = typeof WebhookDocument.Type

/**
 * The webhook as the API returns it: never the secret. `last_delivery_at` is not in the document
 * (deliveries do not write to the webhook's stream); pass it to have it in its place, or leave it
 * out and add it yourself.
 */
export const webhookView = (data: JsonObject, lastDeliveryAt?: string | null): JsonObject => {
  const pick = (key: string): Json => data[key] ?? null
  return {
    id: pick("id"),
    url: pick("url"),
    events: pick("events"),
    status: pick("status"),
    ...(lastDeliveryAt === undefined ? {} : { last_delivery_at: lastDeliveryAt }),
    has_secret: pick("has_secret"),
    recovery: pick("recovery"),
    created_at: pick("created_at"),
    updated_at: pick("updated_at")
  }
}

/** Whether a new event of this type gets a delivery: a failed webhook receives none until reactivated. */
export const subscribesTo = (webhookData: JsonObject, eventType: string): boolean => {
  const events = webhookData["events"]
  return webhookData["status"] === "active" && Array.isArray(events) && (events.includes(WEBHOOK_ALL_EVENTS) || events.includes(eventType))
}
