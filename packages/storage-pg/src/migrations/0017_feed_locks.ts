import { FEED_LOCK_CLASS } from "../internal/feedLock.js"
import type { Migration } from "./Migration.js"

/**
 * The change feed used to read below the xmin of its snapshot, which is the whole server's: any
 * transaction left open in any database (an idle session, an analytics job) held back every
 * workspace's feed until it ended. Now each commit marks the workspaces it appends to with the feed
 * lock (internal/feedLock.ts) before it writes anything, and the feed waits only for running
 * transactions that carry its workspace's mark (readFeed.ts).
 *
 * The mark must come before the transaction's first write, since a reader judges a running
 * transaction by the marks it holds once it has an id. So the two entry points every host calls,
 * ds_commit and ds_commit_batch, become wrappers that take the marks, then call the functions as
 * they were, renamed; a batch marks every workspace of all its commits at once, before its first
 * commit writes. Hosts of earlier versions call the same names, so a database shared during a
 * rolling upgrade marks every commit. ds_commit_with_settings and ds_commit_batch call ds_commit by
 * name, and so reach the wrapper; a lock already held is taken again at no cost to the server.
 */
const commitArgs = "streams jsonb, events jsonb, redact text[], removes jsonb, upserts jsonb, recorded timestamptz"

export const migration: Migration = {
  id: 17,
  name: "feed locks",
  statements: [
    `CREATE FUNCTION ds_feed_lock(workspaces text[]) RETURNS void LANGUAGE plpgsql AS $lock$
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(${FEED_LOCK_CLASS}, keys.k)
        FROM (SELECT DISTINCT hashtext(w) AS k FROM unnest(workspaces) AS w ORDER BY 1) AS keys;
    END
    $lock$`,
    `ALTER FUNCTION ds_commit(${commitArgs}) RENAME TO ds_commit_unmarked`,
    `CREATE FUNCTION ds_commit(${commitArgs})
    RETURNS jsonb LANGUAGE plpgsql AS $commit$
    BEGIN
      PERFORM ds_feed_lock(ARRAY(SELECT e.w FROM jsonb_to_recordset(events) AS e(w text)));
      RETURN ds_commit_unmarked(streams, events, redact, removes, upserts, recorded);
    END
    $commit$`,
    `ALTER FUNCTION ds_commit_batch(items jsonb) RENAME TO ds_commit_batch_unmarked`,
    `CREATE FUNCTION ds_commit_batch(items jsonb)
    RETURNS jsonb LANGUAGE plpgsql AS $batch$
    BEGIN
      PERFORM ds_feed_lock(ARRAY(
        SELECT e.w FROM jsonb_array_elements(items) AS it(item), jsonb_to_recordset(it.item -> 'e') AS e(w text)
      ));
      RETURN ds_commit_batch_unmarked(items);
    END
    $batch$`
  ]
}
