import type { JsonObject } from "../json.js"
import type { DomainEvent } from "../storage/events.js"

/** `fields` holds every standard field but `id` (stage already chosen) and the given custom keys. */
export type DealCreated = DomainEvent<"deal.created", {
  readonly id: string
  readonly fields: JsonObject
  readonly at: string
}>

/** Fields other than `pipeline_id`/`stage_id` whose value actually changed. */
export type DealUpdated = DomainEvent<"deal.updated", { readonly changed: JsonObject; readonly at: string }>

/** A real move; it is also the deal's timeline entry `entry_id`. */
export type DealStageChanged = DomainEvent<"deal.stage_changed", {
  readonly entry_id: string
  readonly from_pipeline_id: string
  readonly to_pipeline_id: string
  readonly from_stage_id: string
  readonly to_stage_id: string
  readonly reason: string | null
  readonly at: string
}>

export type DealDeleted = DomainEvent<"deal.deleted", { readonly at: string }>
export type DealRestored = DomainEvent<"deal.restored", { readonly at: string }>
/** The tombstone left once the recovery window is over. */
export type DealPurged = DomainEvent<"deal.purged", { readonly at: string }>

export type DealEvent = DealCreated | DealUpdated | DealStageChanged | DealDeleted | DealRestored | DealPurged
