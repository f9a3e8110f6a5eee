import { Schema } from "effect"
import { recordEvents } from "../record/events.js"

/**
 * The activity's events: its life (record/events.ts), nothing of its own. `fields` on creation includes
 * done_at; marking it done or open again is an update of done_at. On a purge subject and body leave the log.
 */
export const {
  Created: ActivityCreated,
  Updated: ActivityUpdated,
  Deleted: ActivityDeleted,
  Restored: ActivityRestored,
  Purged: ActivityPurged,
  Event: ActivityEvent
} = recordEvents("activity", Schema.JsonObject)
export type ActivityCreated = typeof ActivityCreated.Type
export type ActivityUpdated = typeof ActivityUpdated.Type
export type ActivityDeleted = typeof ActivityDeleted.Type
export type ActivityRestored = typeof ActivityRestored.Type
export type ActivityPurged = typeof ActivityPurged.Type
export type ActivityEvent = typeof ActivityEvent.Type
