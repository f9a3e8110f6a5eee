import type { CreatePipeline, StageInput } from "./commands.js"

export const DEFAULT_PIPELINE_NAME = "Sales"

/**
 * The stages of a new workspace's pipeline, in order: four open ones with the probability a deal in
 * each has of being won, then the two that close a deal.
 */
export const DEFAULT_STAGES: ReadonlyArray<Omit<StageInput, "id">> = [
  { name: "Lead", probability: 0.1 },
  { name: "Qualified", probability: 0.25 },
  { name: "Proposal", probability: 0.5 },
  { name: "Negotiation", probability: 0.75 },
  { name: "Won", outcome: "won", probability: 1 },
  { name: "Lost", outcome: "lost", probability: 0 }
]

export const DEFAULT_STAGE_NAMES: ReadonlyArray<string> = DEFAULT_STAGES.map((stage) => stage.name)

/** The pipeline every new workspace starts with; the engine supplies one id per stage. */
export const defaultPipelineCommand = (id: string, stageIds: ReadonlyArray<string>, at: string): CreatePipeline => {
  if (stageIds.length < DEFAULT_STAGES.length) {
    throw new Error(`defaultPipelineCommand needs ${DEFAULT_STAGES.length} stage ids, got ${stageIds.length}`)
  }
  return {
    type: "CreatePipeline",
    id,
    at,
    name: DEFAULT_PIPELINE_NAME,
    stages: DEFAULT_STAGES.map((stage, i) => ({ ...stage, id: stageIds[i] as string }))
  }
}
