import type { StoredFunction } from "./StoredFunction.js"

/**
 * A commit function called by a procedure that commits, then reads the WAL's insert position: the
 * position of the write (core's positions.ts), which is at or after the commit record, returned
 * with the outcome in the same answer. So every commit knows its position without a round trip of
 * its own: `CALL <fn>_at(…)` replaces `SELECT <fn>(…)`. The COMMIT needs the CALL outside any
 * transaction block, as commitBatches.ts sends it; an error before it undoes the call as before.
 * `arguments` are the function's, `name type` each, in order.
 */
const committedAt = (fn: string, args: ReadonlyArray<string>): StoredFunction => ({
  name: `${fn}_at`,
  text: `CREATE OR REPLACE PROCEDURE ${fn}_at(
      ${args.join(", ")}, INOUT outcome jsonb DEFAULT NULL, INOUT written_at text DEFAULT NULL
    )
    LANGUAGE plpgsql AS $at$
    BEGIN
      outcome := ${fn}(${args.map((arg) => arg.split(" ")[0]).join(", ")});
      COMMIT;
      written_at := pg_current_wal_insert_lsn()::text;
    END
    $at$`
})

const COMMIT_ARGS = ["streams jsonb", "events jsonb", "redact text[]", "removes jsonb", "upserts jsonb", "recorded timestamptz"]

export const ds_commit_at = committedAt("ds_commit", COMMIT_ARGS)
export const ds_commit_with_settings_at = committedAt("ds_commit_with_settings", [...COMMIT_ARGS, "settings_read jsonb"])
export const ds_commit_batch_at = committedAt("ds_commit_batch", ["items jsonb"])
