import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/** `fields` holds every standard field but `id` (stage already chosen) and the given custom keys. */
export const DealCreated = DomainEvent("deal.created", { id: Schema.String, fields: Schema.JsonObject, at: Schema.String })
export type DealCreated = typeof DealCreated.Type

/** Fields other than `pipeline_id`/`stage_id` whose value actually changed. */
export const DealUpdated = DomainEvent("deal.updated", { changed: Schema.JsonObject, at: Schema.String })
export type DealUpdated = typeof DealUpdated.Type

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

export const DealDeleted = DomainEvent("deal.deleted", { at: Schema.String })
export type DealDeleted = typeof DealDeleted.Type

export const DealRestored = DomainEvent("deal.restored", { at: Schema.String })
export type DealRestored = typeof DealRestored.Type

/** The tombstone left once the recovery window is over. */
export const DealPurged = DomainEvent("deal.purged", { at: Schema.String })
export type DealPurged = typeof DealPurged.Type

export const DealEvent = Schema.Union([DealCreated, DealUpdated, DealStageChanged, DealDeleted, DealRestored, DealPurged])
export type DealEvent = typeof DealEvent.Type
