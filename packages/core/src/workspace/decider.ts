import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { WorkspaceCommand } from "./commands.js"
import type { WorkspaceEvent } from "./events.js"

export type WorkspaceState = { readonly status: "new" } | { readonly status: "initialized"; readonly defaultPipelineId: string }

/** A workspace is initialised once; initialising it again changes nothing. */
export const workspaceDecider: Decider<WorkspaceCommand, WorkspaceEvent, WorkspaceState> = {
  initialState: { status: "new" },
  evolve: (_state, event) => ({ status: "initialized", defaultPipelineId: event.data.default_pipeline_id }),
  decide: (command, state) =>
    Result.succeed(
      state.status === "new"
        ? [{ type: "workspace.initialized", data: { default_pipeline_id: command.defaultPipelineId, at: command.at } }]
        : []
    )
}
