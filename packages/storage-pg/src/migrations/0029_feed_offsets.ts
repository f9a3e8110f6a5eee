import type { Migration } from "./Migration.js"

/**
 * Per workspace, the offset that its feed's key adds to the committing transaction's id, and the
 * Citus node (group id) whose ids it was set for (internal/feedOffset.ts). A shard move carries a
 * workspace's log to a worker with transaction ids of its own; the first commit there sets the
 * offset so that its keys come after every key stored. On plain PostgreSQL no row is ever written.
 * Its rows live with their workspace's log (citus.ts distributes it by workspace_id).
 */
export const migration: Migration = {
  id: 29,
  name: "feed offsets",
  statements: [
    `CREATE TABLE ds_feed_offsets (
      workspace_id text COLLATE "C" PRIMARY KEY,
      server integer NOT NULL,
      xact_offset bigint NOT NULL
    )`
  ]
}
