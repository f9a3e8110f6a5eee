import type { Migration } from "./Migration.js"

/**
 * One workspace's events in order (readWorkspaceLog): a webhook's recovery walks them, and the
 * change feed will. Without it the walk filters the whole log.
 */
export const migration: Migration = {
  id: 12,
  name: "events by workspace",
  statements: [`CREATE INDEX ds_events_workspace_sequence ON ds_events (workspace_id, sequence)`]
}
