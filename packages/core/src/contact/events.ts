import { Schema } from "effect"
import { recordEvents } from "../record/events.js"

/** The contact's events: its life (record/events.ts), nothing of its own. On a purge the personal data leave the log. */
const events = recordEvents("contact", Schema.JsonObject)
export const ContactEvent = events.Event
export type ContactEvent = typeof ContactEvent.Type
export type ContactCreated = typeof events.Created.Type
export type ContactUpdated = typeof events.Updated.Type
