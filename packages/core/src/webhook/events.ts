import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/**
 * Whether a secret is signed with its decoded bytes (a whsec_ secret given since they are read
 * so). Absent means no: events and documents from before keep signing with the characters.
 */
const secretStandard = Schema.optionalKey(Schema.Boolean)

/** The secret a rotation replaced, still signed with until `expires_at`. */
export const PreviousSecret = Schema.Struct({
  secret: Schema.String,
  secret_standard: secretStandard,
  expires_at: Schema.String
})
export type PreviousSecret = typeof PreviousSecret.Type

/** The secret is kept in the log: workers sign with it, and a rebuild must find it again. */
export const WebhookCreated = DomainEvent("webhook.created", {
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  secret: Schema.NullOr(Schema.String),
  secret_standard: secretStandard,
  at: Schema.String
})
export type WebhookCreated = typeof WebhookCreated.Type

/**
 * Only the keys whose value actually changed. A new `secret` replaces `secret_standard` and
 * `previous_secret` too: absent, they are false and none.
 */
export const WebhookChanges = Schema.Struct({
  url: Schema.optionalKey(Schema.String),
  events: Schema.optionalKey(Schema.Array(Schema.String)),
  secret: Schema.optionalKey(Schema.NullOr(Schema.String)),
  secret_standard: secretStandard,
  previous_secret: Schema.optionalKey(PreviousSecret)
})
export type WebhookChanges = typeof WebhookChanges.Type

export const WebhookUpdated = DomainEvent("webhook.updated", { changed: WebhookChanges, at: Schema.String })
export type WebhookUpdated = typeof WebhookUpdated.Type

/** A failed webhook receives new deliveries again. */
export const WebhookReactivated = DomainEvent("webhook.reactivated", { at: Schema.String })
export type WebhookReactivated = typeof WebhookReactivated.Type

/** `gone`: the receiver answered 410; `exhausted`: a delivery used up the retry schedule. */
export const WebhookFailed = DomainEvent("webhook.failed", { reason: Schema.Literals(["gone", "exhausted"]), at: Schema.String })
export type WebhookFailed = typeof WebhookFailed.Type

export const WebhookDeleted = DomainEvent("webhook.deleted", { at: Schema.String })
export type WebhookDeleted = typeof WebhookDeleted.Type

/** A recovery job started for this webhook (see recovery/): it runs until `webhook.recovery_ended`. */
export const WebhookRecoveryStarted = DomainEvent("webhook.recovery_started", {
  job_id: Schema.String,
  since: Schema.String,
  at: Schema.String
})
export type WebhookRecoveryStarted = typeof WebhookRecoveryStarted.Type

export const WebhookRecoveryEnded = DomainEvent("webhook.recovery_ended", { job_id: Schema.String, at: Schema.String })
export type WebhookRecoveryEnded = typeof WebhookRecoveryEnded.Type

export const WebhookEvent = Schema.Union([
  WebhookCreated,
  WebhookUpdated,
  WebhookReactivated,
  WebhookFailed,
  WebhookDeleted,
  WebhookRecoveryStarted,
  WebhookRecoveryEnded
])
export type WebhookEvent = typeof WebhookEvent.Type
