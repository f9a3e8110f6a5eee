import { Option, Schema } from "effect"
import type { Projected } from "../decider.js"
import { isJsonObject, type Json, type JsonObject } from "../json.js"
import type { PipelineInfo } from "./decider.js"
import { type PipelineEvent, Stage } from "./events.js"

/** `{id, name, stages: [{id, name, position, …}], created_at, updated_at}`; pipelines are never deleted. */
export const projectPipeline = (doc: Projected | null, event: PipelineEvent): Projected | null => {
  switch (event.type) {
    case "pipeline.created": {
      const { at, id, name, stages } = event.data
      return { data: { id, name, stages, created_at: at, updated_at: at }, deletedAt: null }
    }
    case "pipeline.updated": {
      if (doc === null) return null
      const { at, name, stages } = event.data
      const { created_at, updated_at: _, ...rest } = doc.data
      return {
        ...doc,
        data: {
          ...rest,
          ...(name === undefined ? {} : { name }),
          ...(stages === undefined ? {} : { stages }),
          created_at: created_at ?? null,
          updated_at: at
        }
      }
    }
  }
}

/**
 * A stored pipeline with its keys, and its stages' keys, in the order above whatever the storage
 * gave (PostgreSQL's jsonb orders keys by length): a stage's `outcome` and `probability` always
 * (null when unset: pipelines made before they existed read so until PATCHed), its rules when it has
 * them, `required_fields` first.
 */
export const pipelineView = (data: JsonObject): JsonObject => {
  const stages = data["stages"]
  return {
    id: data["id"] ?? null,
    name: data["name"] ?? null,
    stages: Array.isArray(stages) ? stages.map((stage: Json): Json => (isJsonObject(stage) ? stageView(stage) : stage)) : [],
    created_at: data["created_at"] ?? null,
    updated_at: data["updated_at"] ?? null
  }
}

const ALWAYS = ["id", "name", "position", "outcome", "probability"]
const WHEN_SET = ["required_fields", "next_stage_ids"]

const stageView = (stage: JsonObject): JsonObject => {
  const out: Record<string, Json> = {}
  for (const key of ALWAYS) out[key] = stage[key] ?? null
  for (const key of WHEN_SET) if (Object.hasOwn(stage, key)) out[key] = stage[key]!
  return out
}

/** What deal commands and figures know of a pipeline (decider.ts's PipelineInfo), read off its document. */
export const pipelineInfoOfView = (data: JsonObject): PipelineInfo => ({
  id: String(data["id"]),
  stages: (Array.isArray(data["stages"]) ? data["stages"] : []).flatMap((stage) => Option.toArray(decodeStage(stage)))
})

const decodeStage = Schema.decodeUnknownOption(Stage)
