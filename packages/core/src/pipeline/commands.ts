import type { StageOutcome } from "./events.js"

/**
 * A stage as a command gives it. Its outcome, probability and rules: left out, an update keeps the
 * stage's current ones (a new stage has none); `[]` and `null` clear them.
 */
export interface StageInput {
  readonly id: string
  readonly name: string
  readonly outcome?: StageOutcome | null
  readonly probability?: number | null
  readonly required_fields?: ReadonlyArray<string>
  /** The stages a deal in this stage may move to; null: any. */
  readonly next_stage_ids?: ReadonlyArray<string> | null
}

/** Stage ids are made by the engine before deciding. */
export interface CreatePipeline {
  readonly type: "CreatePipeline"
  readonly id: string
  readonly at: string
  readonly name: string
  readonly stages: ReadonlyArray<StageInput>
}

export interface UpdatePipeline {
  readonly type: "UpdatePipeline"
  readonly id: string
  readonly at: string
  readonly name?: string
  /** The whole new list, in order: stages left out are removed. */
  readonly stages?: ReadonlyArray<StageInput>
  /** The ids the engine made for stages sent without one. */
  readonly knownNewStageIds: ReadonlySet<string>
  /** Stages that live deals sit in: removing one would strand them. */
  readonly stagesHoldingDeals: ReadonlySet<string>
}

export type PipelineCommand = CreatePipeline | UpdatePipeline
