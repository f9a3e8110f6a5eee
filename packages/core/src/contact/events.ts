import { Schema } from "effect"
import { recordEvents } from "../record/events.js"

/**
 * The contact's events: its life (record/events.ts), and `contact.erased`, the tombstone of a
 * person's erasure, and a merge's (record/merge.ts). On a purge or an erasure the personal data leave the log.
 */
const events = recordEvents("contact", Schema.JsonObject)
export const ContactEvent = Schema.Union([
  events.Created,
  events.Updated,
  events.Deleted,
  events.Restored,
  events.Purged,
  events.Erased,
  events.Merged,
  events.MergedInto,
  events.Unmerged,
  events.MergeUndone
])
export type ContactEvent = typeof ContactEvent.Type
export type ContactCreated = typeof events.Created.Type
export type ContactUpdated = typeof events.Updated.Type
export type ContactErased = typeof events.Erased.Type
