import type { Migration } from "./Migration.js"

/**
 * From here on every stored function lives in functions/ as its current text, which migrate.ts
 * applies after the versioned migrations (by hash, in the same transaction); migrations keep tables,
 * indexes and data, and the DROPs of what the files no longer define. Two functions of 0017 go:
 * - ds_commit_batch_unmarked: ds_commit_batch takes the batch's feed marks in its own text now, one
 *   call less per batch;
 * - ds_feed_lock: ds_commit and ds_commit_batch spell its one statement themselves, one statement
 *   less per commit (functions/feedMark.ts).
 * Until the function step replaces them, 0017's ds_commit and ds_commit_batch still call both; the
 * step follows in this transaction, so no commit ever sees them missing.
 */
export const migration: Migration = {
  id: 18,
  name: "stored functions",
  statements: [`DROP FUNCTION ds_commit_batch_unmarked(jsonb)`, `DROP FUNCTION ds_feed_lock(text[])`]
}
