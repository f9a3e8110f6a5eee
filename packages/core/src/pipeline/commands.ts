export interface StageInput {
  readonly id: string
  readonly name: string
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
