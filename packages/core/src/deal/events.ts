import { Schema } from "effect"
import { recordEvents } from "../record/events.js"
import { DomainEvent } from "../storage/events.js"

/**
 * The deal's life (record/events.ts; `fields` on creation has the stage already chosen, an update's
 * `changed` fields other than `pipeline_id`/`stage_id`), and its stage moves.
 */
const life = recordEvents("deal", Schema.JsonObject)
export const { Created: DealCreated, Updated: DealUpdated, Deleted: DealDeleted, Restored: DealRestored, Purged: DealPurged } = life
export type DealCreated = typeof DealCreated.Type
export type DealUpdated = typeof DealUpdated.Type
export type DealDeleted = typeof DealDeleted.Type
export type DealRestored = typeof DealRestored.Type
export type DealPurged = typeof DealPurged.Type

/** A real move; it is also the deal's timeline entry `entry_id`. */
export const DealStageChanged = DomainEvent("deal.stage_changed", {
  entry_id: Schema.String,
  from_pipeline_id: Schema.String,
  to_pipeline_id: Schema.String,
  from_stage_id: Schema.String,
  to_stage_id: Schema.String,
  reason: Schema.NullOr(Schema.String),
  at: Schema.String
})
export type DealStageChanged = typeof DealStageChanged.Type

export const DealEvent = Schema.Union([DealCreated, DealUpdated, DealStageChanged, DealDeleted, DealRestored, DealPurged])
export type DealEvent = typeof DealEvent.Type
