import type { JsonObject } from "../json.js"
import type { DomainEvent } from "../storage/events.js"

/** `fields` holds every standard field but `id`, and the custom keys given on creation. */
export type ContactCreated = DomainEvent<"contact.created", {
  readonly id: string
  readonly fields: JsonObject
  readonly at: string
}>

/** Only the fields whose value actually changed. */
export type ContactUpdated = DomainEvent<"contact.updated", { readonly changed: JsonObject; readonly at: string }>
export type ContactDeleted = DomainEvent<"contact.deleted", { readonly at: string }>
export type ContactRestored = DomainEvent<"contact.restored", { readonly at: string }>
/** The tombstone left once the recovery window is over; the personal data leave the log. */
export type ContactPurged = DomainEvent<"contact.purged", { readonly at: string }>

export type ContactEvent = ContactCreated | ContactUpdated | ContactDeleted | ContactRestored | ContactPurged
