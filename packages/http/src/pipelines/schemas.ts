import { Schema } from "effect"
import { exampleId, Timestamp } from "../documented.js"

export const Stage = Schema.Struct({
  id: exampleId("stage"),
  name: Schema.String.annotate({ examples: ["Qualified"] }),
  position: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "0-based order within the pipeline." })
}).annotate({ identifier: "Stage" })

export const Pipeline = Schema.Struct({
  id: exampleId("pipe"),
  name: Schema.String.annotate({ examples: ["Sales"] }),
  stages: Schema.Array(Stage),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "Pipeline" })

export const PipelineInput = Schema.Struct({
  name: Schema.String,
  stages: Schema.Array(Schema.Struct({ name: Schema.String })).check(Schema.isMinLength(1)).annotate({
    description: "At least one stage, in order."
  })
}).annotate({ identifier: "PipelineInput" })

export const PipelinePatch = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  stages: Schema.optionalKey(
    Schema.Array(Schema.Struct({ id: Schema.optionalKey(Schema.String), name: Schema.String })).annotate({
      description: "The complete new stage list in order: existing stages by id (renamed or reordered), new ones without id. " +
        "Leaving out a stage that holds live deals is 409."
    })
  )
}).annotate({ identifier: "PipelinePatch" })
