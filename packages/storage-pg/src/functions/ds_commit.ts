import { markFeeds } from "./feedMark.js"
import type { StoredFunction } from "./StoredFunction.js"

/**
 * A commit (commit.ts sends one alone; ds_commit_with_settings and ds_commit_batch call it): the
 * feed mark of every workspace it appends to, before anything is written, then ds_commit_unmarked's
 * checks and writes, whose arguments and result these are. Hosts of every version call this name
 * with these arguments, so every commit is marked whichever host sent it.
 */
export const ds_commit: StoredFunction = {
  name: "ds_commit",
  text: `CREATE OR REPLACE FUNCTION ds_commit(streams jsonb, events jsonb, redact text[], removes jsonb, upserts jsonb, recorded timestamptz)
    RETURNS jsonb LANGUAGE plpgsql AS $commit$
    BEGIN
      ${markFeeds("e.w", "jsonb_to_recordset(events) AS e(w text)")}
      RETURN ds_commit_unmarked(streams, events, redact, removes, upserts, recorded);
    END
    $commit$`
}
