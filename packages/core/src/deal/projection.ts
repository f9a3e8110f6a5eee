import type { Projected } from "../decider.js"
import type { Json, JsonObject } from "../json.js"
import type { DealEvent } from "./events.js"

/** Keeps `created_at, updated_at` last, after custom keys added later, as on creation. */
const withTimestamps = (data: JsonObject, changed: JsonObject, updatedAt: string): JsonObject => {
  const { created_at, updated_at: _, ...rest } = data
  return { ...rest, ...changed, created_at: created_at ?? null, updated_at: updatedAt }
}

/**
 * The deal document as the API returns it. Delete and restore only toggle `deletedAt`, so a restore
 * gives back the identical document; a stage change is an update of the deal too.
 */
export const projectDeal = (doc: Projected | null, event: DealEvent): Projected | null => {
  switch (event.type) {
    case "deal.created": {
      const { at, fields, id } = event.data
      const data: Record<string, Json> = { id, ...fields, created_at: at, updated_at: at }
      return { data, deletedAt: null }
    }
    case "deal.updated":
      return doc === null ? null : { ...doc, data: withTimestamps(doc.data, event.data.changed, event.data.at) }
    case "deal.stage_changed": {
      if (doc === null) return null
      const { at, to_pipeline_id, to_stage_id } = event.data
      return { ...doc, data: withTimestamps(doc.data, { pipeline_id: to_pipeline_id, stage_id: to_stage_id }, at) }
    }
    case "deal.deleted":
      return doc === null ? null : { ...doc, deletedAt: event.data.at }
    case "deal.restored":
      return doc === null ? null : { ...doc, deletedAt: null }
    case "deal.purged":
      return null
  }
}

/** A deal's timeline entry: one per real stage change. A type, not an interface, so it is a JsonObject. */
export type TimelineEntry = {
  readonly id: string
  readonly deal_id: string
  readonly from_stage_id: string
  readonly to_stage_id: string
  readonly reason: string | null
  readonly changed_at: string
}

/**
 * A stored timeline entry with its keys in the entry's order (PostgreSQL's jsonb returns them by
 * key length): as timelineEntryOf made it, on either storage.
 */
export const timelineEntryView = (data: JsonObject): JsonObject => {
  const pick = (key: keyof TimelineEntry): Json => data[key] ?? null
  return {
    id: pick("id"),
    deal_id: pick("deal_id"),
    from_stage_id: pick("from_stage_id"),
    to_stage_id: pick("to_stage_id"),
    reason: pick("reason"),
    changed_at: pick("changed_at")
  }
}

/** The timeline entry a stage change records; other events record none. */
export const timelineEntryOf = (dealId: string, event: DealEvent): TimelineEntry | null =>
  event.type === "deal.stage_changed"
    ? {
        id: event.data.entry_id,
        deal_id: dealId,
        from_stage_id: event.data.from_stage_id,
        to_stage_id: event.data.to_stage_id,
        reason: event.data.reason,
        changed_at: event.data.at
      }
    : null
