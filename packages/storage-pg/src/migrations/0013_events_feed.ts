import type { Migration } from "./Migration.js"

/**
 * The change feed reads one workspace's events in (transaction, sequence) order (readFeed.ts):
 * an index in that order, so a page after a position is one range of it. xid8 has a btree
 * operator class since PostgreSQL 13.
 */
export const migration: Migration = {
  id: 13,
  name: "events feed",
  statements: [`CREATE INDEX ds_events_workspace_feed ON ds_events (workspace_id, xact_id, sequence)`]
}
