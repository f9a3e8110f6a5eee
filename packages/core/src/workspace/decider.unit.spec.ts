import { describe, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import { workspaceDecider } from "./decider.js"

const at = "2026-01-01T00:00:00.000Z"
const given = DeciderSpecification.for(workspaceDecider)

describe("workspace decider", () => {
  it("initialises a new workspace with its default pipeline", () =>
    given([])
      .when({ type: "InitializeWorkspace", defaultPipelineId: "pipe_1", at })
      .then([{ type: "workspace.initialized", data: { default_pipeline_id: "pipe_1", at } }]))

  it("changes nothing the second time", () =>
    given([{ type: "workspace.initialized", data: { default_pipeline_id: "pipe_1", at } }])
      .when({ type: "InitializeWorkspace", defaultPipelineId: "pipe_2", at })
      .thenNothingHappens())
})
