import type { DomainEvent } from "../storage/events.js"

/** The secret is kept in the log: workers sign with it, and a rebuild must find it again. */
export type WebhookCreated = DomainEvent<"webhook.created", {
  readonly id: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly secret: string | null
  readonly at: string
}>

/** Only the keys whose value actually changed. A type, not an interface, so it is a JsonObject. */
export type WebhookChanges = {
  readonly url?: string
  readonly events?: ReadonlyArray<string>
  readonly secret?: string | null
}

export type WebhookUpdated = DomainEvent<"webhook.updated", { readonly changed: WebhookChanges; readonly at: string }>
/** A failed webhook receives new deliveries again. */
export type WebhookReactivated = DomainEvent<"webhook.reactivated", { readonly at: string }>
/** `gone`: the receiver answered 410; `exhausted`: a delivery used up the retry schedule. */
export type WebhookFailed = DomainEvent<"webhook.failed", { readonly reason: "gone" | "exhausted"; readonly at: string }>
export type WebhookDeleted = DomainEvent<"webhook.deleted", { readonly at: string }>

export type WebhookEvent = WebhookCreated | WebhookUpdated | WebhookReactivated | WebhookFailed | WebhookDeleted
