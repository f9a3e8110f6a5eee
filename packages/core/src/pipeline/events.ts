import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/** What entering a stage means for a deal: it is won, or lost (an open stage has none). */
export const stageOutcomes = ["won", "lost"] as const
export type StageOutcome = (typeof stageOutcomes)[number]

/**
 * A stage, and what it says beyond its name, each present only when set (a stage without them reads
 * as before they existed, so pipelines made earlier keep their events as they were): `outcome`, what
 * entering it means for a deal (deal/closing.ts); `probability`, from 0 to 1, how likely a deal in
 * it is to be won; and its rules: `required_fields`, the deal fields that must hold a value for a
 * deal to enter the stage; `next_stage_ids`, the stages of the pipeline a deal in this stage may
 * move to (absent: any).
 */
export const Stage = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  /** The stage's index in the pipeline's list, from 0. */
  position: Schema.Number,
  outcome: Schema.optionalKey(Schema.Literals(stageOutcomes)),
  probability: Schema.optionalKey(Schema.Number),
  required_fields: Schema.optionalKey(Schema.Array(Schema.String)),
  next_stage_ids: Schema.optionalKey(Schema.Array(Schema.String))
})
export type Stage = typeof Stage.Type

export const PipelineCreated = DomainEvent("pipeline.created", {
  id: Schema.String,
  name: Schema.String,
  stages: Schema.Array(Stage),
  at: Schema.String
})
export type PipelineCreated = typeof PipelineCreated.Type

/** Carries `name` and `stages` only when they changed; `stages` is then the whole new list. */
export const PipelineUpdated = DomainEvent("pipeline.updated", {
  name: Schema.optionalKey(Schema.String),
  stages: Schema.optionalKey(Schema.Array(Stage)),
  at: Schema.String
})
export type PipelineUpdated = typeof PipelineUpdated.Type

export const PipelineEvent = Schema.Union([PipelineCreated, PipelineUpdated])
export type PipelineEvent = typeof PipelineEvent.Type
