import type { Aggregate } from "../aggregate.js"
import type { CustomFieldCommand } from "./commands.js"
import { customFieldDecider, type CustomFieldState } from "./decider.js"
import { CustomFieldEvent } from "./events.js"

/** All custom field definitions of a workspace live in one stream, so defining one is atomic. */
export const customFieldStreamId = (workspaceId: string) => `cfs_${workspaceId}`

/**
 * A workspace's custom field definitions. They have no document of their own: they are read from
 * their stream, and the documents of contacts and deals depend on them (visible and searched fields).
 */
export const customFieldAggregate: Aggregate<CustomFieldCommand, CustomFieldEvent, CustomFieldState> = {
  name: "custom_field",
  prefix: "cfs",
  decider: customFieldDecider,
  events: CustomFieldEvent,
  project: null,
  documents: () => [],
  collections: [],
  settings: true,
  rebuilt: false
}
