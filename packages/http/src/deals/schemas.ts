import { dealFields, dealStatuses, LOST_REASON_MAX } from "@dealstream/core"
import { Schema } from "effect"
import { Activity, expandedActivities } from "../activities/schemas.js"
import { Company } from "../companies/schemas.js"
import { exampleId, optionalList, Timestamp, withCustomFields } from "../documented.js"
import { answerFields, createFields, patchFields } from "../fieldSchemas.js"

const DealStatus = Schema.Literals(dealStatuses)

export const DealInput = withCustomFields(createFields(dealFields.standard), { identifier: "DealInput" })

export const DealPatch = withCustomFields(patchFields(dealFields.standard), {
  identifier: "DealPatch",
  description: "Only the keys present change."
})

/** The deal's computed keys (core's dealFields.computed), as the engine answers them. */
const computed = {
  weighted_value: Schema.NullOr(Schema.Finite).annotate({
    description:
      "value × probability (the deal's own, else its stage's, as the pipeline has it now), rounded to the currency's minor " +
      "unit; null unless both are known. Derived when the deal is shown: sortable, not filterable."
  }),
  companies: optionalList(
    Company,
    "With expand=companies: the deal's company as a full object, in a list of none (no company, or one not live) or one."
  ),
  activities: expandedActivities(Activity)
}

export const Deal = withCustomFields(answerFields(dealFields.standard, computed), { identifier: "Deal" })

export const TimelineEntry = Schema.Struct({
  id: exampleId("tle"),
  deal_id: exampleId("deal"),
  from_stage_id: Schema.NullOr(Schema.String),
  to_stage_id: Schema.String,
  from_status: Schema.NullOr(DealStatus).annotate({
    description: "The deal's status before the move (null on moves recorded before deals closed by their stage)."
  }),
  to_status: Schema.NullOr(DealStatus).annotate({ description: "The deal's status after the move (null as from_status)." }),
  reason: Schema.NullOr(Schema.String),
  changed_at: Timestamp
}).annotate({ identifier: "TimelineEntry" })

export const StageMove = Schema.Struct({
  stage_id: Schema.String,
  reason: Schema.optionalKey(
    Schema.NullOr(Schema.String).annotate({
      description: "A note kept on the timeline entry; a move into a lost stage also takes it as the deal's lost_reason."
    })
  ),
  lost_reason: Schema.optionalKey(
    Schema.NullOr(Schema.String).annotate({
      description: `Why the deal is lost, for a move into a lost stage only (400 otherwise); at most ${LOST_REASON_MAX} characters.`
    })
  )
}).annotate({ identifier: "StageMove" })

export const StageMoveResult = Schema.Struct({
  deal: Deal,
  timeline_entry: Schema.NullOr(TimelineEntry).annotate({
    description: "null when the deal already was in that stage (nothing changed)."
  })
}).annotate({ identifier: "StageMoveResult" })
