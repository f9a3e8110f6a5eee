/** The business events a webhook can subscribe to, in the API's order. */
export const WEBHOOK_EVENT_TYPES = [
  "contact.created",
  "contact.updated",
  "contact.deleted",
  "contact.restored",
  "deal.created",
  "deal.updated",
  "deal.stage_changed",
  "deal.deleted",
  "deal.restored"
] as const

export type WebhookEventType = typeof WEBHOOK_EVENT_TYPES[number]

/** Subscribes to every event type, including those added later. */
export const WEBHOOK_ALL_EVENTS = "*"

export const isWebhookEventType = (u: unknown): u is WebhookEventType =>
  typeof u === "string" && (WEBHOOK_EVENT_TYPES as ReadonlyArray<string>).includes(u)
