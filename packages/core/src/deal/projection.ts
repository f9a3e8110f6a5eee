import type { Projected } from "../decider.js"
import type { Json, JsonObject } from "../json.js"
import { withoutContact } from "../record/links.js"
import type { DealEvent, DealStageChanged } from "./events.js"

/** Keeps `created_at, updated_at` last, after custom keys added later, as on creation. */
const withTimestamps = (data: JsonObject, changed: JsonObject, updatedAt: string): JsonObject => {
  const { created_at, updated_at: _, ...rest } = data
  return { ...rest, ...changed, created_at: created_at ?? null, updated_at: updatedAt }
}

/**
 * The fields a stage move sets: the pipeline and stage, when the deal entered it, and the closing
 * the move left (closing.ts), which a move recorded before closing existed does not carry. The
 * deal's document (below) and its decider's state (decider.ts) both apply it.
 */
export const movedFields = (data: DealStageChanged["data"]): JsonObject => ({
  pipeline_id: data.to_pipeline_id,
  stage_id: data.to_stage_id,
  stage_entered_at: data.at,
  ...(data.to_status === undefined ? {} : { status: data.to_status }),
  ...(data.closed_at === undefined ? {} : { closed_at: data.closed_at }),
  ...(data.lost_reason === undefined ? {} : { lost_reason: data.lost_reason })
})

/**
 * The deal document as the API returns it. Delete and restore only toggle `deletedAt`, so a restore
 * gives back the identical document; a stage change is an update of the deal too.
 */
export const projectDeal = (doc: Projected | null, event: DealEvent): Projected | null => {
  switch (event.type) {
    case "deal.created": {
      const { at, fields, id } = event.data
      const data: Record<string, Json> = { id, ...fields, stage_entered_at: at, created_at: at, updated_at: at }
      return { data, deletedAt: null }
    }
    case "deal.updated":
      return doc === null ? null : { ...doc, data: withTimestamps(doc.data, event.data.changed, event.data.at) }
    case "deal.stage_changed":
      return doc === null ? null : { ...doc, data: withTimestamps(doc.data, movedFields(event.data), event.data.at) }
    case "deal.deleted":
      return doc === null ? null : { ...doc, deletedAt: event.data.at }
    case "deal.restored":
      return doc === null ? null : { ...doc, deletedAt: null }
    case "deal.purged":
      return null
    // Not an edit of the deal's own fields: updated_at stays as it was.
    case "deal.contact_unlinked":
      return doc === null ? null : { ...doc, data: withoutContact(doc.data, event.data.contact_id) }
  }
}

/** A deal's timeline entry: one per real stage change. A type, not an interface, so it is a JsonObject. */
export type TimelineEntry = {
  readonly id: string
  readonly deal_id: string
  readonly from_stage_id: string
  readonly to_stage_id: string
  /** The deal's status before and after the move; null on moves recorded before deals closed by stage. */
  readonly from_status: string | null
  readonly to_status: string | null
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
    from_status: pick("from_status"),
    to_status: pick("to_status"),
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
        from_status: event.data.from_status ?? null,
        to_status: event.data.to_status ?? null,
        reason: event.data.reason,
        changed_at: event.data.at
      }
    : null
