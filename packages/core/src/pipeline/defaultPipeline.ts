import type { CreatePipeline } from "./commands.js"

export const DEFAULT_PIPELINE_NAME = "Sales"
export const DEFAULT_STAGE_NAMES = ["Lead", "Qualified", "Proposal", "Negotiation", "Won", "Lost"] as const

/** The pipeline every new workspace starts with; the engine supplies one id per stage. */
export const defaultPipelineCommand = (id: string, stageIds: ReadonlyArray<string>, at: string): CreatePipeline => {
  if (stageIds.length < DEFAULT_STAGE_NAMES.length) {
    throw new Error(`defaultPipelineCommand needs ${DEFAULT_STAGE_NAMES.length} stage ids, got ${stageIds.length}`)
  }
  return {
    type: "CreatePipeline",
    id,
    at,
    name: DEFAULT_PIPELINE_NAME,
    stages: DEFAULT_STAGE_NAMES.map((name, i) => ({ id: stageIds[i] as string, name }))
  }
}
