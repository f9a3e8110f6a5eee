import { Schema } from "effect"
import { exampleId, Timestamp } from "../documented.js"

export const Stage = Schema.Struct({
  id: exampleId("stage"),
  name: Schema.String.annotations({ examples: ["Qualified"] }),
  position: Schema.Number.annotations({ description: "0-based order within the pipeline." })
}).annotations({ identifier: "Stage" })

export const Pipeline = Schema.Struct({
  id: exampleId("pipe"),
  name: Schema.String.annotations({ examples: ["Sales"] }),
  stages: Schema.Array(Stage),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Pipeline" })

export const PipelineInput = Schema.Struct({
  name: Schema.String,
  stages: Schema.NonEmptyArray(Schema.Struct({ name: Schema.String })).annotations({
    description: "At least one stage, in order."
  })
}).annotations({ identifier: "PipelineInput" })

export const PipelinePatch = Schema.Struct({
  name: Schema.optional(Schema.String),
  stages: Schema.optional(
    Schema.Array(Schema.Struct({ id: Schema.optional(Schema.String), name: Schema.String })).annotations({
      description: "The complete new stage list in order: existing stages by id (renamed or reordered), new ones without id. " +
        "Leaving out a stage that holds live deals is 409."
    })
  )
}).annotations({ identifier: "PipelinePatch" })
