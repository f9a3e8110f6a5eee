import { Schema } from "effect"
import { recordEvents } from "../record/events.js"

/**
 * The activity's events: its life (record/events.ts), and `activity.contact_unlinked`, a linked
 * contact's erasure. `fields` on creation includes done_at; marking it done or open again is an
 * update of done_at. On a purge subject and body leave the log.
 */
const events = recordEvents("activity", Schema.JsonObject)
export const ActivityEvent = Schema.Union([
  events.Created,
  events.Updated,
  events.Deleted,
  events.Restored,
  events.Purged,
  events.ContactUnlinked
])
export type ActivityEvent = typeof ActivityEvent.Type
