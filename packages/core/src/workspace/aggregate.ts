import type { Aggregate } from "../aggregate.js"
import type { WorkspaceCommand } from "./commands.js"
import { workspaceDecider, type WorkspaceState } from "./decider.js"
import { WorkspaceEvent } from "./events.js"

export const workspaceStreamId = (workspaceId: string) => `ws_${workspaceId}`

/**
 * A workspace's own stream: whether it has its default pipeline yet. Its first event is appended at
 * version 0 with that pipeline, so when several hosts race to initialise it, exactly one wins.
 */
export const workspaceAggregate: Aggregate<WorkspaceCommand, WorkspaceEvent, WorkspaceState> = {
  name: "workspace",
  prefix: "ws",
  decider: workspaceDecider,
  events: WorkspaceEvent,
  project: null,
  documents: () => [],
  collections: [],
  rebuilt: false
}
