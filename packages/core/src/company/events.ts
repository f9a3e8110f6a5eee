import { Schema } from "effect"
import { recordEvents } from "../record/events.js"

/** The company's events: its life (record/events.ts) and a merge's. On a purge the company's data leave the log. */
const events = recordEvents("company", Schema.JsonObject)
export const CompanyEvent = Schema.Union([
  events.Created,
  events.Updated,
  events.Deleted,
  events.Restored,
  events.Purged,
  events.Merged,
  events.MergedInto,
  events.Unmerged,
  events.MergeUndone
])
export type CompanyEvent = typeof CompanyEvent.Type
