import { tables } from "../tables.js"
import type { StoredFunction } from "./StoredFunction.js"
import { commitStatement, type Layout } from "./workspaceRows.js"

/** The version of the settings of the workspace `workspace` (a PL/pgSQL expression) into `actual`. */
const versionOf = (layout: Layout, workspace: string) =>
  `${commitStatement(layout, {
    table: tables.settingsVersions,
    workspace,
    sql: "SELECT version FROM {t} WHERE workspace_id = $1",
    params: [workspace],
    into: "actual"
  })}
        actual := coalesce(actual, 0);`

/**
 * ds_commit with the settings versions around it, for the commits that read settings or append to
 * a settings stream (commit.ts sends the others to ds_commit alone). Its extra argument lists the
 * settings versions the commit was decided at ({i, w, v}); a stream of `streams` marked `settings`
 * moves its workspace's version on.
 *
 * - Locks first: per workspace concerned, a transaction-scoped advisory lock, exclusive where the
 *   commit moves the version on, shared where it only read it. A commit that moves a version on
 *   therefore waits for the commits that read it to finish, and they for it, so a read checked
 *   here stays true until the commit is done, exactly as a stream's locked version row does, and
 *   readers (most commands) leave no row lock behind: no write, no contention among themselves.
 *   Taken in key order, before ds_commit locks its streams, so two commits cannot deadlock over
 *   them. The key is the workspace's hash under a class of its own (1936028788, "sett" in ASCII):
 *   two workspaces sharing a hash only wait on each other. None of them writes, so the feed mark
 *   ds_commit takes still comes before the first write.
 * - Then the reads are compared with the stored versions; the first that differs is a conflict
 *   on `settings:<workspace>`, and nothing is written.
 * - Then ds_commit; only when it stored the commit are the versions moved on and a NOTIFY sent on
 *   `dealstream_settings` per workspace, inside the transaction, so it is heard only if the commit
 *   commits (an undone one, alone inside a batch or with its statement, drops its notification).
 *
 * Every statement plpgsql runs costs server CPU, which a busy server pays on every commit: a
 * commit that read one workspace's settings and moves none (most commands) runs one besides
 * ds_commit (its read; the rest are plain expressions), any other the locks in one statement and
 * a read per workspace it read, and only a commit that moves versions on writes them.
 */
export const ds_commit_with_settings = (layout: Layout): StoredFunction => ({
  name: "ds_commit_with_settings",
  text: `CREATE OR REPLACE FUNCTION ds_commit_with_settings(
      streams jsonb, events jsonb, redact text[], removes jsonb, upserts jsonb, recorded timestamptz, settings_read jsonb
    )
    RETURNS jsonb LANGUAGE plpgsql AS $commit$
    DECLARE
      read_at text;
      actual integer;
      moves boolean;
      stale record;
      outcome jsonb;
      changed text[];
    BEGIN
      -- Most commands: one workspace's settings read, none moved. Expressions only (no statement
      -- to run) but for the one read; the lock is tried first and waited for only when held.
      IF jsonb_array_length(settings_read) = 1 AND NOT streams @? '$[*] ? (@.settings == true && @.added > 0)' THEN
        read_at := settings_read -> 0 ->> 'w';
        IF NOT pg_try_advisory_xact_lock_shared(1936028788, hashtext(read_at)) THEN
          PERFORM pg_advisory_xact_lock_shared(1936028788, hashtext(read_at));
        END IF;
        ${versionOf(layout, "read_at")}
        IF actual <> (settings_read -> 0 ->> 'v')::int THEN
          RETURN jsonb_build_object('conflict', jsonb_build_array('settings:' || read_at, (settings_read -> 0 ->> 'v')::int, actual));
        END IF;
        RETURN ds_commit(streams, events, redact, removes, upserts, recorded);
      END IF;
      -- Any other: one statement takes every lock, row by row as "locked" reads "plan" in key
      -- order (a subquery calling a volatile function is not merged into the query around it).
      SELECT coalesce(bool_or(locked.moves), false) INTO moves FROM (
        SELECT plan.moves, CASE WHEN plan.moves
          THEN pg_advisory_xact_lock(1936028788, plan.k)
          ELSE pg_advisory_xact_lock_shared(1936028788, plan.k) END
        FROM (
          SELECT hashtext(s.w) AS k, bool_or(s.moves) AS moves
          FROM (
            SELECT a.w, true AS moves FROM jsonb_to_recordset(streams) AS a(w text, settings boolean, added int)
            WHERE a.settings AND a.added > 0
            UNION ALL
            SELECT q.w, false FROM jsonb_to_recordset(settings_read) AS q(w text)
          ) AS s
          GROUP BY 1 ORDER BY 1
        ) AS plan
      ) AS locked;
      -- Statements of their own, so that they read what committed before the locks were granted;
      -- one per workspace read, each naming its workspace: on Citus a read of the versions by a
      -- join would go to every shard (a commit reads a workspace or two).
      FOR stale IN SELECT q.w, q.v FROM jsonb_to_recordset(settings_read) AS q(i int, w text, v int) ORDER BY q.i LOOP
        ${versionOf(layout, "stale.w")}
        IF actual <> stale.v THEN
          RETURN jsonb_build_object('conflict', jsonb_build_array('settings:' || stale.w, stale.v, actual));
        END IF;
      END LOOP;
      outcome := ds_commit(streams, events, redact, removes, upserts, recorded);
      IF NOT moves OR outcome ? 'conflict' THEN
        RETURN outcome;
      END IF;
      changed := ARRAY(
        SELECT DISTINCT a.w FROM jsonb_to_recordset(streams) AS a(w text, settings boolean, added int)
        WHERE a.settings AND a.added > 0 ORDER BY 1
      );
      -- One row per statement, by its workspace, for the same reason as the check above.
      FOREACH read_at IN ARRAY changed LOOP
        INSERT INTO ds_settings_versions AS t (workspace_id, version) VALUES (read_at, 1)
          ON CONFLICT (workspace_id) DO UPDATE SET version = t.version + 1;
      END LOOP;
      PERFORM pg_notify('dealstream_settings', json_build_object('_tag', 'Changed', 'workspaceId', w)::text)
        FROM unnest(changed) AS w;
      RETURN outcome;
    END
    $commit$`
})
