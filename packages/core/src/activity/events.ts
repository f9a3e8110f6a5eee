import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/** `fields` holds every standard field but `id` (done_at included) and the custom keys given on creation. */
export const ActivityCreated = DomainEvent("activity.created", { id: Schema.String, fields: Schema.JsonObject, at: Schema.String })
export type ActivityCreated = typeof ActivityCreated.Type

/** Only the fields whose value actually changed; marking it done or open again changes done_at. */
export const ActivityUpdated = DomainEvent("activity.updated", { changed: Schema.JsonObject, at: Schema.String })
export type ActivityUpdated = typeof ActivityUpdated.Type

export const ActivityDeleted = DomainEvent("activity.deleted", { at: Schema.String })
export type ActivityDeleted = typeof ActivityDeleted.Type

export const ActivityRestored = DomainEvent("activity.restored", { at: Schema.String })
export type ActivityRestored = typeof ActivityRestored.Type

/** The tombstone left once the recovery window is over; subject and body leave the log. */
export const ActivityPurged = DomainEvent("activity.purged", { at: Schema.String })
export type ActivityPurged = typeof ActivityPurged.Type

export const ActivityEvent = Schema.Union([ActivityCreated, ActivityUpdated, ActivityDeleted, ActivityRestored, ActivityPurged])
export type ActivityEvent = typeof ActivityEvent.Type
