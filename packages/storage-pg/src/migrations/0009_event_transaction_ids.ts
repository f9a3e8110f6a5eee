import type { Migration } from "./Migration.js"

/**
 * Every event records the id of the transaction that wrote it (`xact_id`), for a change feed that
 * walks the log in commit order without skipping: sequence values are taken at insert, so a
 * transaction holding a lower sequence may commit after one holding a higher, and a reader that had
 * moved past that sequence would miss its events for good. Knowing each event's transaction, a
 * reader can take only the events of transactions older than any still running (the xmin of its
 * snapshot), which no later commit can come before.
 *
 * Added with a constant default first (a catalog change: no rewrite of the log, however long),
 * then given `pg_current_xact_id()` as its default, which every INSERT into the log (ds_commit's
 * names no xact_id) fills in from now on. Events written before read 0: they all committed before
 * any recorded id, so they come first, in sequence order. xid8 is the 64-bit id, which does not
 * wrap around and is ordered (PostgreSQL 13 and later).
 */
export const migration: Migration = {
  id: 9,
  name: "event transaction ids",
  statements: [
    `ALTER TABLE ds_events ADD COLUMN xact_id xid8 NOT NULL DEFAULT '0'`,
    `ALTER TABLE ds_events ALTER COLUMN xact_id SET DEFAULT pg_current_xact_id()`
  ]
}
