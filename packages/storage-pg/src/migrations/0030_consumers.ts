import type { Migration } from "./Migration.js"

/**
 * Per workspace and consumer name (engine.consume): the change feed cursor it finished through
 * (null: from the oldest event), the deliveries begun since and not finished, and the lease: who
 * holds it until when, by the database's clock, which every process shares. Its rows live with
 * their workspace's log (citus.ts distributes it by workspace_id), so a handler's transaction that
 * stores the checkpoint touches the workspace's worker.
 */
export const migration: Migration = {
  id: 30,
  name: "consumers",
  statements: [
    `CREATE TABLE ds_consumers (
      workspace_id text COLLATE "C" NOT NULL,
      name text COLLATE "C" NOT NULL,
      checkpoint text,
      attempts integer NOT NULL DEFAULT 0,
      lease_owner text,
      lease_until timestamptz,
      PRIMARY KEY (workspace_id, name)
    )`
  ]
}
