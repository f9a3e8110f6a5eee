import { describe, expect, it } from "@effect/vitest"
import type { Projected } from "../decider.js"
import type { PipelineEvent } from "./events.js"
import { projectPipeline } from "./projection.js"

describe("projectPipeline", () => {
  it("builds the pipeline document and applies renames and new stage lists", () => {
    const events: ReadonlyArray<PipelineEvent> = [
      {
        type: "pipeline.created",
        data: { id: "pipe_1", name: "Sales", stages: [{ id: "s1", name: "Lead", position: 0 }], at: "2026-01-01T00:00:00.000Z" }
      },
      { type: "pipeline.updated", data: { name: "Enterprise", at: "2026-01-02T00:00:00.000Z" } },
      {
        type: "pipeline.updated",
        data: {
          stages: [
            { id: "s2", name: "Won", position: 0 },
            { id: "s1", name: "Lead", position: 1 }
          ],
          at: "2026-01-03T00:00:00.000Z"
        }
      }
    ]
    expect(events.reduce<Projected | null>(projectPipeline, null)).toEqual({
      data: {
        id: "pipe_1",
        name: "Enterprise",
        stages: [
          { id: "s2", name: "Won", position: 0 },
          { id: "s1", name: "Lead", position: 1 }
        ],
        created_at: "2026-01-01T00:00:00.000Z",
        updated_at: "2026-01-03T00:00:00.000Z"
      },
      deletedAt: null
    })
  })
})
