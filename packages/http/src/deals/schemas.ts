import { Schema } from "effect"
import { customFields, exampleId, nullable, Timestamp } from "../documented.js"

const optional = <S extends Schema.Top>(schema: S, description: string) =>
  Schema.optionalKey(Schema.NullOr(schema).annotate({ description }))

const Currency = Schema.String.annotate({ description: "ISO 4217 code.", examples: ["EUR", "USD"] })
const LocalDate = Schema.String.annotate({
  description: "YYYY-MM-DD",
  examples: ["2026-12-31"],
  format: "date"
})
const Status = Schema.Literals(["open", "won", "lost"])

const writable = {
  stage_id: Schema.optionalKey(Schema.String.annotate({
    description: "A stage of the pipeline; defaults to its first stage. A change moves the deal and adds a timeline entry."
  })),
  value: optional(Schema.Finite, "Deal value."),
  currency: optional(Currency, "ISO 4217 currency of value."),
  expected_close_date: optional(LocalDate, "Expected close date."),
  owner_id: optional(Schema.String, "The user who owns the deal."),
  contact_ids: Schema.optionalKey(Schema.Array(Schema.String).annotate({ description: "Associated live contacts." })),
  status: Schema.optionalKey(Status)
}

export const DealInput = Schema.StructWithRest(
  Schema.Struct({
    name: Schema.String.annotate({ examples: ["ACME renewal 2027"] }),
    pipeline_id: Schema.String,
    ...writable
  }),
  customFields
).annotate({ identifier: "DealInput" })

export const DealPatch = Schema.StructWithRest(
  Schema.Struct({
    name: Schema.optionalKey(Schema.String),
    pipeline_id: Schema.optionalKey(Schema.String.annotate({
      description: "Without stage_id the deal moves to the new pipeline's first stage."
    })),
    ...writable
  }),
  customFields
).annotate({ identifier: "DealPatch", description: "Only the keys present change." })

export const Deal = Schema.StructWithRest(
  Schema.Struct({
    id: exampleId("deal"),
    name: Schema.String,
    pipeline_id: exampleId("pipe"),
    stage_id: exampleId("stage"),
    value: nullable(Schema.Finite, "Deal value."),
    currency: nullable(Currency, "Currency."),
    expected_close_date: nullable(LocalDate, "Expected close date."),
    owner_id: nullable(Schema.String, "Owner."),
    contact_ids: Schema.Array(Schema.String),
    status: Status,
    created_at: Timestamp,
    updated_at: Timestamp
  }),
  customFields
).annotate({ identifier: "Deal" })

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
