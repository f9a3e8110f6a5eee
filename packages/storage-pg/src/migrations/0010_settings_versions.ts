import type { Migration } from "./Migration.js"

/**
 * Settings versions (the port's settingsVersion, settingsRead and settingsChanges): one row per
 * workspace whose settings ever changed, absent meaning 0.
 *
 * ds_commit_with_settings is ds_commit (0006's, unchanged, called as is) with the settings around
 * it, for the commits that read settings or append to a settings stream; commits that do neither
 * keep calling ds_commit alone. Its extra argument lists the settings versions the commit was
 * decided at ({i, w, v}); a stream of `streams` marked `settings` moves its workspace's version on.
 *
 * - Locks first: per workspace concerned, a transaction-scoped advisory lock, exclusive where the
 *   commit moves the version on, shared where it only read it. A commit that moves a version on
 *   therefore waits for the commits that read it to finish, and they for it, so a read checked
 *   here stays true until the commit is done, exactly as a stream's locked version row does, and
 *   readers (most commands) leave no row lock behind: no write, no contention among themselves.
 *   Taken in key order, before ds_commit locks its streams, so two commits cannot deadlock over
 *   them. The key is the workspace's hash under a class of its own (1936028788, "sett" in ASCII):
 *   two workspaces sharing a hash only wait on each other.
 * - Then each read is compared with the stored version; the first that differs is a conflict on
 *   `settings:<workspace>`, and nothing is written.
 * - Then ds_commit; only when it stored the commit are the versions moved on and a NOTIFY sent on
 *   `dealstream_settings` per workspace, inside the transaction, so it is heard only if the commit
 *   commits (an undone one, alone inside a batch or with its statement, drops its notification).
 *
 * ds_commit_batch again (0007's, same loop) calls ds_commit_with_settings for an item carrying
 * settings reads (`q`, which the client sends whenever the commit touches settings) and ds_commit
 * for any other; an item without `q` is exactly what an earlier host sends.
 */
export const migration: Migration = {
  id: 10,
  name: "settings versions",
  statements: [
    `CREATE TABLE ds_settings_versions (
      workspace_id text COLLATE "C" PRIMARY KEY,
      version integer NOT NULL
    )`,
    `CREATE FUNCTION ds_commit_with_settings(
      streams jsonb, events jsonb, redact text[], removes jsonb, upserts jsonb, recorded timestamptz, settings_read jsonb
    )
    RETURNS jsonb LANGUAGE plpgsql AS $commit$
    DECLARE
      changed text[];
      settings_lock record;
      settings_read_at record;
      current_version integer;
      outcome jsonb;
    BEGIN
      changed := ARRAY(
        SELECT DISTINCT a.w FROM jsonb_to_recordset(streams) AS a(w text, settings boolean, added int)
        WHERE a.settings AND a.added > 0
      );
      FOR settings_lock IN
        SELECT hashtext(s.w) AS k, bool_or(s.moves) AS moves
        FROM (
          SELECT w, true AS moves FROM unnest(changed) AS w
          UNION ALL
          SELECT q.w, false FROM jsonb_to_recordset(settings_read) AS q(w text)
        ) AS s
        GROUP BY 1 ORDER BY 1
      LOOP
        IF settings_lock.moves THEN
          PERFORM pg_advisory_xact_lock(1936028788, settings_lock.k);
        ELSE
          PERFORM pg_advisory_xact_lock_shared(1936028788, settings_lock.k);
        END IF;
      END LOOP;
      FOR settings_read_at IN SELECT * FROM jsonb_to_recordset(settings_read) AS q(i int, w text, v int) ORDER BY q.i LOOP
        current_version := coalesce((SELECT version FROM ds_settings_versions WHERE workspace_id = settings_read_at.w), 0);
        IF current_version <> settings_read_at.v THEN
          RETURN jsonb_build_object('conflict', jsonb_build_array('settings:' || settings_read_at.w, settings_read_at.v, current_version));
        END IF;
      END LOOP;
      outcome := ds_commit(streams, events, redact, removes, upserts, recorded);
      IF outcome ? 'conflict' THEN
        RETURN outcome;
      END IF;
      INSERT INTO ds_settings_versions AS t (workspace_id, version) SELECT w, 1 FROM unnest(changed) AS w
        ON CONFLICT (workspace_id) DO UPDATE SET version = t.version + 1;
      PERFORM pg_notify('dealstream_settings', json_build_object('_tag', 'Changed', 'workspaceId', w)::text)
        FROM unnest(changed) AS w;
      RETURN outcome;
    END
    $commit$`,
    `CREATE OR REPLACE FUNCTION ds_commit_batch(items jsonb)
    RETURNS jsonb LANGUAGE plpgsql AS $batch$
    DECLARE
      item jsonb;
      outcome jsonb;
      outcomes jsonb := '[]'::jsonb;
      failed_code text;
      failed_constraint text;
      failed_message text;
    BEGIN
      FOR item IN SELECT value FROM jsonb_array_elements(items) LOOP
        BEGIN
          IF item ? 'q' THEN
            outcome := ds_commit_with_settings(
              item -> 's', item -> 'e', ARRAY(SELECT jsonb_array_elements_text(item -> 'r')),
              item -> 'd', item -> 'u', (item ->> 'at')::timestamptz, item -> 'q'
            );
          ELSE
            outcome := ds_commit(
              item -> 's', item -> 'e', ARRAY(SELECT jsonb_array_elements_text(item -> 'r')),
              item -> 'd', item -> 'u', (item ->> 'at')::timestamptz
            );
          END IF;
        EXCEPTION WHEN OTHERS THEN
          GET STACKED DIAGNOSTICS failed_code = RETURNED_SQLSTATE,
            failed_constraint = CONSTRAINT_NAME,
            failed_message = MESSAGE_TEXT;
          outcome := jsonb_build_object('error', jsonb_build_object(
            'code', failed_code,
            'constraint', nullif(failed_constraint, ''),
            'message', failed_message
          ));
        END;
        outcomes := outcomes || jsonb_build_array(outcome);
      END LOOP;
      RETURN outcomes;
    END
    $batch$`
  ]
}
