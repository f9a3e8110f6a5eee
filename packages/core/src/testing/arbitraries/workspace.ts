import * as fc from "fast-check"
import type { InitializeWorkspace, WorkspaceCommand } from "../../workspace/commands.js"
import type { WorkspaceEvent, WorkspaceInitialized } from "../../workspace/events.js"
import { workspaceAggregate } from "../../workspace/aggregate.js"
import { traceCommands } from "../trace.js"
import { idOf, instant, streamScript } from "./common.js"

export const initializeWorkspace: fc.Arbitrary<InitializeWorkspace> = fc
  .record({ defaultPipelineId: idOf("pipe"), at: instant })
  .map((c) => ({ type: "InitializeWorkspace", ...c }))

/** A workspace's stream: initialised once; a second initialisation (a racing host's) records nothing. */
export const workspaceScript: fc.Arbitrary<ReadonlyArray<WorkspaceCommand>> = streamScript(initializeWorkspace, initializeWorkspace, 2)

export const workspaceHistory: fc.Arbitrary<ReadonlyArray<WorkspaceEvent>> = workspaceScript.map(
  (s) => traceCommands(workspaceAggregate, s).history
)

export const workspaceInitialized: fc.Arbitrary<WorkspaceInitialized> = initializeWorkspace.map((c) => ({
  type: "workspace.initialized",
  data: { default_pipeline_id: c.defaultPipelineId, at: c.at }
}))

/** The workspace stream writes no document of its own (its pipeline is the pipeline aggregate's). */
export const workspaceArbitraries = {
  commands: { InitializeWorkspace: initializeWorkspace },
  command: initializeWorkspace as fc.Arbitrary<WorkspaceCommand>,
  script: workspaceScript,
  history: workspaceHistory,
  events: { "workspace.initialized": workspaceInitialized },
  event: workspaceInitialized as fc.Arbitrary<WorkspaceEvent>
}
