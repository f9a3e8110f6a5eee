import { Schema } from "effect"
import { stageOutcomes } from "@dealstream/core"
import { exampleId, Timestamp } from "../documented.js"

const requiredFields = Schema.Array(Schema.String).annotate({
  description:
    "Stage rule: deal fields that must hold a value (not null, empty or []) for a deal to enter the stage, " +
    "by creation or by a move: value, currency, expected_close_date, owner_id, contact_ids or custom field keys. " +
    "A deal without them is refused with 400 validation_error, one detail per missing field, naming the rule.",
  examples: [["value", "expected_close_date"]]
})

const nextStageIds = Schema.Array(Schema.String).annotate({
  description:
    "Stage rule: the stages of this pipeline a deal in this stage may move to. Absent, any stage may follow; " +
    "[] makes the stage final. A move elsewhere within the pipeline is refused with 400 validation_error at stage_id, " +
    "naming the rule. Moves to another pipeline are checked against the new stage's required_fields only."
})

const outcome = Schema.NullOr(Schema.Literals(stageOutcomes)).annotate({
  description:
    "What entering the stage means: null for an open stage, won or lost for a stage that closes the deal (its status, " +
    "closed_at and lost_reason follow; see Deal.status). Pipelines made before outcomes existed have null until PATCHed."
})

const probability = Schema.NullOr(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))).annotate({
  description: "How likely a deal in this stage is to be won, from 0 to 1: a deal's weighted_value uses it unless the deal has its own."
})

export const Stage = Schema.Struct({
  id: exampleId("stage"),
  name: Schema.String.annotate({ examples: ["Qualified"] }),
  position: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "0-based order within the pipeline." }),
  outcome,
  probability,
  required_fields: Schema.optionalKey(requiredFields),
  next_stage_ids: Schema.optionalKey(nextStageIds)
}).annotate({ identifier: "Stage", description: "A stage; its rules appear only when set." })

export const Pipeline = Schema.Struct({
  id: exampleId("pipe"),
  name: Schema.String.annotate({ examples: ["Sales"] }),
  stages: Schema.Array(Stage),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "Pipeline" })

export const PipelineInput = Schema.Struct({
  name: Schema.String,
  stages: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      outcome: Schema.optionalKey(outcome),
      probability: Schema.optionalKey(probability),
      required_fields: Schema.optionalKey(requiredFields)
    })
  )
    .check(Schema.isMinLength(1))
    .annotate({
      description: "At least one stage, in order. next_stage_ids names stage ids, so it is set with PATCH once the stages have them."
    })
}).annotate({ identifier: "PipelineInput" })

export const PipelinePatch = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  stages: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        id: Schema.optionalKey(Schema.String),
        name: Schema.String,
        outcome: Schema.optionalKey(outcome),
        probability: Schema.optionalKey(probability),
        required_fields: Schema.optionalKey(requiredFields),
        next_stage_ids: Schema.optionalKey(Schema.NullOr(nextStageIds))
      })
    ).annotate({
      description:
        "The complete new stage list in order: existing stages by id (renamed or reordered), new ones without id. " +
        "Leaving out a stage that holds live deals is 409. A stage's outcome, probability and rules left out stay as they " +
        "are; null (or [] for required_fields) clears them. Deals already in a stage whose outcome changes keep their " +
        "status until they next move or their status is set. " +
        "next_stage_ids may name only stages of the new list."
    })
  )
}).annotate({ identifier: "PipelinePatch" })
