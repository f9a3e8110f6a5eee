import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/** `fields` holds every standard field but `id`, and the custom keys given on creation. */
export const ContactCreated = DomainEvent("contact.created", { id: Schema.String, fields: Schema.JsonObject, at: Schema.String })
export type ContactCreated = typeof ContactCreated.Type

/** Only the fields whose value actually changed. */
export const ContactUpdated = DomainEvent("contact.updated", { changed: Schema.JsonObject, at: Schema.String })
export type ContactUpdated = typeof ContactUpdated.Type

export const ContactDeleted = DomainEvent("contact.deleted", { at: Schema.String })
export type ContactDeleted = typeof ContactDeleted.Type

export const ContactRestored = DomainEvent("contact.restored", { at: Schema.String })
export type ContactRestored = typeof ContactRestored.Type

/** The tombstone left once the recovery window is over; the personal data leave the log. */
export const ContactPurged = DomainEvent("contact.purged", { at: Schema.String })
export type ContactPurged = typeof ContactPurged.Type

export const ContactEvent = Schema.Union([ContactCreated, ContactUpdated, ContactDeleted, ContactRestored, ContactPurged])
export type ContactEvent = typeof ContactEvent.Type
