import { Schema } from "effect"
import { recordEvents } from "../record/events.js"

/**
 * The activity's events: its life (record/events.ts), nothing of its own. `fields` on creation includes
 * done_at; marking it done or open again is an update of done_at. On a purge subject and body leave the log.
 */
export const ActivityEvent = recordEvents("activity", Schema.JsonObject).Event
export type ActivityEvent = typeof ActivityEvent.Type
