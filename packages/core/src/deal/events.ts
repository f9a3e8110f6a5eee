import { Schema } from "effect"
import { dealStatuses } from "../field/dealFields.js"
import { recordEvents } from "../record/events.js"
import { DomainEvent } from "../storage/events.js"

/**
 * The deal's life (record/events.ts; `fields` on creation has the stage already chosen, an update's
 * `changed` fields other than `pipeline_id`/`stage_id`), and its stage moves.
 */
const life = recordEvents("deal", Schema.JsonObject)
export const {
  Created: DealCreated,
  Updated: DealUpdated,
  Deleted: DealDeleted,
  Restored: DealRestored,
  Purged: DealPurged,
  ContactUnlinked: DealContactUnlinked
} = life
export type DealCreated = typeof DealCreated.Type
export type DealUpdated = typeof DealUpdated.Type
export type DealDeleted = typeof DealDeleted.Type
export type DealRestored = typeof DealRestored.Type
export type DealPurged = typeof DealPurged.Type
/** An erased contact taken out of the deal's contact_ids (the contact's id only), live or in the trash. */
export type DealContactUnlinked = typeof DealContactUnlinked.Type

const Status = Schema.Literals(dealStatuses)

/**
 * A real move; it is also the deal's timeline entry `entry_id`. Since deals close by their stage
 * (closing.ts) it also says the deal's closing after the move: `from_status`, `to_status`, and the
 * `closed_at` and `lost_reason` it leaves; moves recorded before then carry none of these (the
 * closing stayed as it was).
 */
export const DealStageChanged = DomainEvent("deal.stage_changed", {
  entry_id: Schema.String,
  from_pipeline_id: Schema.String,
  to_pipeline_id: Schema.String,
  from_stage_id: Schema.String,
  to_stage_id: Schema.String,
  reason: Schema.NullOr(Schema.String),
  from_status: Schema.optionalKey(Status),
  to_status: Schema.optionalKey(Status),
  closed_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  lost_reason: Schema.optionalKey(Schema.NullOr(Schema.String)),
  at: Schema.String
})
export type DealStageChanged = typeof DealStageChanged.Type

export const DealEvent = Schema.Union([
  DealCreated,
  DealUpdated,
  DealStageChanged,
  DealDeleted,
  DealRestored,
  DealPurged,
  DealContactUnlinked
])
export type DealEvent = typeof DealEvent.Type
