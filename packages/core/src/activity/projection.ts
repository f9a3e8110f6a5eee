import type { Projected } from "../decider.js"
import type { Json, JsonObject } from "../json.js"
import type { ActivityEvent } from "./events.js"

/** Keeps `created_at, updated_at` last, after custom keys added later, as on creation. */
const withTimestamps = (data: JsonObject, changed: JsonObject, updatedAt: string): JsonObject => {
  const { created_at, updated_at: _, ...rest } = data
  return { ...rest, ...changed, created_at: created_at ?? null, updated_at: updatedAt }
}

/**
 * The activity document as stored: its links as written, those to records now in the trash
 * included (views leave them out). Delete and restore only toggle `deletedAt`, so a restore gives
 * back the identical document.
 */
export const projectActivity = (doc: Projected | null, event: ActivityEvent): Projected | null => {
  switch (event.type) {
    case "activity.created": {
      const { at, fields, id } = event.data
      const data: Record<string, Json> = { id, ...fields, created_at: at, updated_at: at }
      return { data, deletedAt: null }
    }
    case "activity.updated":
      return doc === null ? null : { ...doc, data: withTimestamps(doc.data, event.data.changed, event.data.at) }
    case "activity.deleted":
      return doc === null ? null : { ...doc, deletedAt: event.data.at }
    case "activity.restored":
      return doc === null ? null : { ...doc, deletedAt: null }
    case "activity.purged":
      return null
  }
}
