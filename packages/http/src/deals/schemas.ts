import { Schema } from "effect"
import { customFields, exampleId, nullable, Timestamp } from "../documented.js"

const optional = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.optional(Schema.NullOr(schema).annotations({ description }))

const Currency = Schema.String.annotations({ description: "ISO 4217 code.", examples: ["EUR", "USD"] })
const LocalDate = Schema.String.annotations({
  description: "YYYY-MM-DD",
  examples: ["2026-12-31"],
  jsonSchema: { type: "string", format: "date" }
})
const Status = Schema.Literal("open", "won", "lost")

const writable = {
  stage_id: Schema.optional(Schema.String.annotations({
    description: "A stage of the pipeline; defaults to its first stage. A change moves the deal and adds a timeline entry."
  })),
  value: optional(Schema.Number, "Deal value."),
  currency: optional(Currency, "ISO 4217 currency of value."),
  expected_close_date: optional(LocalDate, "Expected close date."),
  owner_id: optional(Schema.String, "The user who owns the deal."),
  contact_ids: Schema.optional(Schema.Array(Schema.String).annotations({ description: "Associated live contacts." })),
  status: Schema.optional(Status)
}

export const DealInput = Schema.Struct({
  name: Schema.String.annotations({ examples: ["ACME renewal 2027"] }),
  pipeline_id: Schema.String,
  ...writable
}, customFields).annotations({ identifier: "DealInput" })

export const DealPatch = Schema.Struct({
  name: Schema.optional(Schema.String),
  pipeline_id: Schema.optional(Schema.String.annotations({
    description: "Without stage_id the deal moves to the new pipeline's first stage."
  })),
  ...writable
}, customFields).annotations({ identifier: "DealPatch", description: "Only the keys present change." })

export const Deal = Schema.Struct({
  id: exampleId("deal"),
  name: Schema.String,
  pipeline_id: exampleId("pipe"),
  stage_id: exampleId("stage"),
  value: nullable(Schema.Number, "Deal value."),
  currency: nullable(Currency, "Currency."),
  expected_close_date: nullable(LocalDate, "Expected close date."),
  owner_id: nullable(Schema.String, "Owner."),
  contact_ids: Schema.Array(Schema.String),
  status: Status,
  created_at: Timestamp,
  updated_at: Timestamp
}, customFields).annotations({ identifier: "Deal" })

export const TimelineEntry = Schema.Struct({
  id: exampleId("tle"),
  deal_id: exampleId("deal"),
  from_stage_id: Schema.NullOr(Schema.String),
  to_stage_id: Schema.String,
  reason: Schema.NullOr(Schema.String),
  changed_at: Timestamp
}).annotations({ identifier: "TimelineEntry" })

export const StageMove = Schema.Struct({
  stage_id: Schema.String,
  reason: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "A note kept on the timeline entry." }))
}).annotations({ identifier: "StageMove" })

export const StageMoveResult = Schema.Struct({
  deal: Deal,
  timeline_entry: Schema.NullOr(TimelineEntry).annotations({
    description: "null when the deal already was in that stage (nothing changed)."
  })
}).annotations({ identifier: "StageMoveResult" })
