import { Schema } from "effect"
import { recordEvents } from "../record/events.js"

/**
 * The contact's events: its life (record/events.ts), nothing of its own. On a purge the personal data leave the log.
 */
export const {
  Created: ContactCreated,
  Updated: ContactUpdated,
  Deleted: ContactDeleted,
  Restored: ContactRestored,
  Purged: ContactPurged,
  Event: ContactEvent
} = recordEvents("contact", Schema.JsonObject)
export type ContactCreated = typeof ContactCreated.Type
export type ContactUpdated = typeof ContactUpdated.Type
export type ContactDeleted = typeof ContactDeleted.Type
export type ContactRestored = typeof ContactRestored.Type
export type ContactPurged = typeof ContactPurged.Type
export type ContactEvent = typeof ContactEvent.Type
