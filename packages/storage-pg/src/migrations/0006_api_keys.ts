import type { Migration } from "./Migration.js"

/**
 * API keys (core's apiKey): a document table of the same shape as the others (their columns and
 * indexes, which stay unused here but keep every document table alike for the code that writes
 * them), and ds_commit again (a frozen copy of 0005's, arguments and result unchanged) writing it.
 * Every row is in the reserved workspace `$system` under the key's SHA-256 (hex): authenticating a
 * presented key is one primary-key lookup. The key itself is stored nowhere.
 */

const documentTables: ReadonlyArray<readonly [string, string]> = [
  ["contact", "ds_contacts"],
  ["deal", "ds_deals"],
  ["timeline_entry", "ds_timeline_entries"],
  ["pipeline", "ds_pipelines"],
  ["custom_field", "ds_custom_fields"],
  ["idempotency", "ds_idempotency_keys"],
  ["workspace", "ds_workspaces"],
  ["webhook", "ds_webhooks"],
  ["api_key", "ds_api_keys"]
]

const removeFrom = ([collection, table]: readonly [string, string]) =>
  `WHEN '${collection}' THEN DELETE FROM ${table} WHERE workspace_id = doc.w AND id = doc.id;`

const upsertInto = ([collection, table]: readonly [string, string]) => `WHEN '${collection}' THEN
          INSERT INTO ${table} AS t (workspace_id, id, version, deleted_at, data, unique_key, search_words, folded)
          VALUES (doc.w, doc.id, doc.v, doc.del, doc.d, doc.u, coalesce(doc.s, '{}'), doc.f)
          ON CONFLICT (workspace_id, id) DO UPDATE SET version = excluded.version, deleted_at = excluded.deleted_at,
            data = excluded.data, unique_key = excluded.unique_key, search_words = excluded.search_words, folded = excluded.folded;`

// The claim (FOR UPDATE SKIP LOCKED) and this upsert lock the same row, so they serialise: a claim
// that ran first has its lease cleared here; one that comes after re-reads the committed row.
const upsertDelivery = `WHEN 'delivery' THEN
          INSERT INTO ds_deliveries AS t (workspace_id, id, version, deleted_at, data, unique_key, search_words, folded)
          VALUES (doc.w, doc.id, doc.v, doc.del, doc.d, doc.u, coalesce(doc.s, '{}'), doc.f)
          ON CONFLICT (workspace_id, id) DO UPDATE SET version = excluded.version, deleted_at = excluded.deleted_at,
            data = excluded.data, unique_key = excluded.unique_key, search_words = excluded.search_words, folded = excluded.folded,
            lease_owner = NULL, lease_until = NULL;`

export const migration: Migration = {
  id: 6,
  name: "api keys",
  statements: [
    `CREATE TABLE ds_api_keys (
      workspace_id text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL,
      version integer NOT NULL,
      deleted_at text COLLATE "C",
      data jsonb NOT NULL,
      unique_key text COLLATE "C",
      search_words text[] COLLATE "C" NOT NULL DEFAULT '{}',
      folded jsonb NOT NULL DEFAULT '{}',
      PRIMARY KEY (workspace_id, id)
    )`,
    `CREATE INDEX ds_api_keys_deleted ON ds_api_keys (workspace_id, deleted_at, id) WHERE deleted_at IS NOT NULL`,
    `CREATE UNIQUE INDEX ds_api_keys_unique_key ON ds_api_keys (workspace_id, unique_key) WHERE unique_key IS NOT NULL`,
    `CREATE OR REPLACE FUNCTION ds_commit(streams jsonb, events jsonb, redact text[], removes jsonb, upserts jsonb, recorded timestamptz)
    RETURNS jsonb LANGUAGE plpgsql AS $commit$
    DECLARE
      stream record;
      doc record;
      current_version integer;
      redacted_stream text;
      appended jsonb;
    BEGIN
      -- Lock the version rows in id order, so two commits over the same streams cannot deadlock;
      -- in READ COMMITTED each statement here then reads what committed before it.
      FOR stream IN SELECT a.id FROM jsonb_to_recordset(streams) AS a(id text) ORDER BY a.id LOOP
        PERFORM 1 FROM ds_streams WHERE stream_id = stream.id FOR UPDATE;
      END LOOP;
      FOR stream IN SELECT * FROM jsonb_to_recordset(streams) AS a(i int, id text, expected int) ORDER BY a.i LOOP
        current_version := coalesce((SELECT version FROM ds_streams WHERE stream_id = stream.id), 0);
        IF current_version <> stream.expected THEN
          RETURN jsonb_build_object('conflict', jsonb_build_array(stream.id, stream.expected, current_version));
        END IF;
      END LOOP;
      -- Before the append: a stream's earlier events are redacted, never its new tombstone.
      FOREACH redacted_stream IN ARRAY redact LOOP
        UPDATE ds_events SET data = '{"redacted": true}'::jsonb WHERE stream_id = redacted_stream;
      END LOOP;
      FOR stream IN SELECT * FROM jsonb_to_recordset(streams) AS a(id text, w text, expected int, added int) LOOP
        CONTINUE WHEN stream.added = 0;
        IF stream.expected = 0 THEN
          INSERT INTO ds_streams (stream_id, workspace_id, version) VALUES (stream.id, stream.w, stream.added);
        ELSE
          UPDATE ds_streams SET version = stream.expected + stream.added WHERE stream_id = stream.id;
        END IF;
      END LOOP;
      WITH inserted AS (
        INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
          SELECT e.s, e.v, e.w, e.t, e.d, e.m, recorded
          FROM jsonb_to_recordset(events) AS e(i int, s text, v int, w text, t text, d jsonb, m jsonb)
          ORDER BY e.i
          RETURNING sequence, stream_id, stream_version
      )
      SELECT jsonb_agg(jsonb_build_array(sequence, stream_id, stream_version)) INTO appended FROM inserted;
      -- Removals first, so a key one frees is free for an upsert of the same commit; upserts in
      -- commit order, so a document may take a key another gave up earlier in the commit.
      FOR doc IN SELECT * FROM jsonb_to_recordset(removes) AS r(c text, w text, id text) LOOP
        CASE doc.c
          ${[...documentTables, ["delivery", "ds_deliveries"] as const].map(removeFrom).join("\n          ")}
        END CASE;
      END LOOP;
      FOR doc IN SELECT * FROM jsonb_to_recordset(upserts) AS u(c text, i int, w text, id text, v int, del text, d jsonb, u text, s text[], f jsonb)
        ORDER BY u.i LOOP
        CASE doc.c
          ${documentTables.map(upsertInto).join("\n          ")}
          ${upsertDelivery}
        END CASE;
      END LOOP;
      RETURN jsonb_build_object('events', coalesce(appended, '[]'::jsonb));
    END
    $commit$`
  ]
}
