import { dealFields } from "@dealstream/core"
import { Schema } from "effect"
import { customFields, exampleId, Timestamp } from "../documented.js"
import { answerFields, createFields, patchFields } from "../fieldSchemas.js"

export const DealInput = Schema.StructWithRest(Schema.Struct(createFields(dealFields)), customFields)
  .annotate({ identifier: "DealInput" })

export const DealPatch = Schema.StructWithRest(Schema.Struct(patchFields(dealFields)), customFields)
  .annotate({ identifier: "DealPatch", description: "Only the keys present change." })

export const Deal = Schema.StructWithRest(Schema.Struct(answerFields(dealFields)), customFields)
  .annotate({ identifier: "Deal" })

export const TimelineEntry = Schema.Struct({
  id: exampleId("tle"),
  deal_id: exampleId("deal"),
  from_stage_id: Schema.NullOr(Schema.String),
  to_stage_id: Schema.String,
  reason: Schema.NullOr(Schema.String),
  changed_at: Timestamp
}).annotate({ identifier: "TimelineEntry" })

export const StageMove = Schema.Struct({
  stage_id: Schema.String,
  reason: Schema.optionalKey(Schema.NullOr(Schema.String).annotate({ description: "A note kept on the timeline entry." }))
}).annotate({ identifier: "StageMove" })

export const StageMoveResult = Schema.Struct({
  deal: Deal,
  timeline_entry: Schema.NullOr(TimelineEntry).annotate({
    description: "null when the deal already was in that stage (nothing changed)."
  })
}).annotate({ identifier: "StageMoveResult" })
