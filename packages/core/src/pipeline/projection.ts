import type { Projected } from "../decider.js"
import type { PipelineEvent } from "./events.js"

/** `{id, name, stages: [{id, name, position}], created_at, updated_at}`; pipelines are never deleted. */
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
