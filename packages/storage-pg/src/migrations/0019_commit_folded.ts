import type { Migration } from "./Migration.js"

/**
 * ds_commit holds the whole commit now, its feed mark first (functions/ds_commit.ts), instead of
 * taking the mark and then calling ds_commit_unmarked, which 0017 made of the commit function as it
 * was: one call less per commit. ds_commit_unmarked goes; a test that needs a commit without the
 * mark makes one in its own database from ds_commit's file (test/storage/feedStrangers.pg.spec.ts).
 *
 * Until the function step replaces it, the ds_commit of 0017 and 0018 still calls
 * ds_commit_unmarked (PL/pgSQL resolves the name when it runs, so the DROP does not refuse). That
 * step follows in this transaction, after every migration, and ds_commit's text has changed, so it
 * runs: no commit ever sees ds_commit without what it calls.
 */
export const migration: Migration = {
  id: 19,
  name: "commit folded",
  statements: [`DROP FUNCTION ds_commit_unmarked(jsonb, jsonb, text[], jsonb, jsonb, timestamptz)`]
}
