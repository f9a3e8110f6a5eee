import type { Migration } from "./Migration.js"

/**
 * Companies and activities, the record types issue 18 adds: their document tables (0002's shape),
 * their list indexes, the companies' words table (0011's pattern: companies are searched by name
 * and domain; activities are not searched), the association indexes, ds_commit again writing the
 * two tables, and the feed's NOTIFY trigger again with their event prefixes.
 *
 * The index expressions are a frozen copy of fieldSql.ts as of this migration (as in 0002).
 */

const isString = (key: string) => `jsonb_typeof(data -> '${key}') = 'string'`
const text = (key: string) => `((CASE WHEN ${isString(key)} THEN data ->> '${key}' END) COLLATE "C")`
const timestamp = (key: string) =>
  `((CASE WHEN ${isString(key)} AND (data ->> '${key}') COLLATE "C" ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$' THEN data ->> '${key}' END) COLLATE "C")`

const table = (name: string) => [
  `CREATE TABLE ${name} (
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
  `CREATE INDEX ${name}_deleted ON ${name} (workspace_id, deleted_at, id) WHERE deleted_at IS NOT NULL`,
  `CREATE UNIQUE INDEX ${name}_unique_key ON ${name} (workspace_id, unique_key) WHERE unique_key IS NOT NULL`
]

const live = (table: string, name: string, keys: ReadonlyArray<string>) =>
  `CREATE INDEX ${table}_${name} ON ${table} (workspace_id, ${keys.join(", ")}, id) WHERE deleted_at IS NULL`

/** Which live rows of `table` list an id in the array at `key`: GIN over workspace_id and the array. */
const listing = (table: string, key: string) =>
  `CREATE INDEX ${table}_${key} ON ${table} USING gin (workspace_id, (data -> '${key}') jsonb_path_ops) WHERE deleted_at IS NULL`

const WORD_LENGTH = 200
const cut = (word: string) => `left(${word}, ${WORD_LENGTH})`

const triggerFunction = (name: string, body: string) =>
  `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    ${body};
    RETURN NULL;
  END
  $$`

const insertNew = (words: string) =>
  `INSERT INTO ${words} (workspace_id, word, id)
      SELECT NEW.workspace_id, ${cut("x.word")}, NEW.id FROM unnest(NEW.search_words) AS x(word)
      ON CONFLICT DO NOTHING`

const deleteOld = (words: string, keep: string) =>
  `DELETE FROM ${words} AS w
      WHERE w.workspace_id = OLD.workspace_id AND w.id = OLD.id
        AND w.word = ANY (ARRAY(SELECT ${cut("x.word")} FROM unnest(OLD.search_words) AS x(word)))
        AND w.word <> ALL (${keep})`

// A new table is empty: its words table needs no fill, and takes its key at once.
const wordsOf = (table: string, words: string) => [
  `CREATE TABLE ${words} (
    workspace_id text COLLATE "C" NOT NULL,
    word text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    PRIMARY KEY (workspace_id, word, id)
  )`,
  triggerFunction(`${words}_inserted`, insertNew(words)),
  triggerFunction(
    `${words}_updated`,
    `${deleteOld(words, `ARRAY(SELECT ${cut("y.word")} FROM unnest(NEW.search_words) AS y(word))`)};
    ${insertNew(words)}`
  ),
  triggerFunction(`${words}_deleted`, deleteOld(words, "'{}'::text[]")),
  triggerFunction(`${words}_truncated`, `TRUNCATE ${words}`),
  `CREATE TRIGGER ${words}_inserted AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${words}_inserted()`,
  `CREATE TRIGGER ${words}_updated AFTER UPDATE ON ${table} FOR EACH ROW
    WHEN (OLD.search_words IS DISTINCT FROM NEW.search_words) EXECUTE FUNCTION ${words}_updated()`,
  `CREATE TRIGGER ${words}_deleted AFTER DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${words}_deleted()`,
  `CREATE TRIGGER ${words}_truncated AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${words}_truncated()`
]

const documentTables: ReadonlyArray<readonly [string, string]> = [
  ["contact", "ds_contacts"],
  ["deal", "ds_deals"],
  ["timeline_entry", "ds_timeline_entries"],
  ["pipeline", "ds_pipelines"],
  ["custom_field", "ds_custom_fields"],
  ["idempotency", "ds_idempotency_keys"],
  ["workspace", "ds_workspaces"],
  ["webhook", "ds_webhooks"],
  ["api_key", "ds_api_keys"],
  ["company", "ds_companies"],
  ["activity", "ds_activities"]
]

const removeFrom = ([collection, table]: readonly [string, string]) =>
  `WHEN '${collection}' THEN DELETE FROM ${table} WHERE workspace_id = doc.w AND id = doc.id;`

const upsertInto = ([collection, table]: readonly [string, string]) => `WHEN '${collection}' THEN
          INSERT INTO ${table} AS t (workspace_id, id, version, deleted_at, data, unique_key, search_words, folded)
          VALUES (doc.w, doc.id, doc.v, doc.del, doc.d, doc.u, coalesce(doc.s, '{}'), doc.f)
          ON CONFLICT (workspace_id, id) DO UPDATE SET version = excluded.version, deleted_at = excluded.deleted_at,
            data = excluded.data, unique_key = excluded.unique_key, search_words = excluded.search_words, folded = excluded.folded;`

const upsertDelivery = `WHEN 'delivery' THEN
          INSERT INTO ds_deliveries AS t (workspace_id, id, version, deleted_at, data, unique_key, search_words, folded)
          VALUES (doc.w, doc.id, doc.v, doc.del, doc.d, doc.u, coalesce(doc.s, '{}'), doc.f)
          ON CONFLICT (workspace_id, id) DO UPDATE SET version = excluded.version, deleted_at = excluded.deleted_at,
            data = excluded.data, unique_key = excluded.unique_key, search_words = excluded.search_words, folded = excluded.folded,
            lease_owner = NULL, lease_until = NULL;`

/** 0006's ds_commit, arguments, steps and result unchanged, with the two new tables in its CASEs. */
const commitFunction = `CREATE OR REPLACE FUNCTION ds_commit(streams jsonb, events jsonb, redact text[], removes jsonb, upserts jsonb, recorded timestamptz)
    RETURNS jsonb LANGUAGE plpgsql AS $commit$
    DECLARE
      stream record;
      doc record;
      current_version integer;
      redacted_stream text;
      appended jsonb;
    BEGIN
      FOR stream IN SELECT a.id FROM jsonb_to_recordset(streams) AS a(id text) ORDER BY a.id LOOP
        PERFORM 1 FROM ds_streams WHERE stream_id = stream.id FOR UPDATE;
      END LOOP;
      FOR stream IN SELECT * FROM jsonb_to_recordset(streams) AS a(i int, id text, expected int) ORDER BY a.i LOOP
        current_version := coalesce((SELECT version FROM ds_streams WHERE stream_id = stream.id), 0);
        IF current_version <> stream.expected THEN
          RETURN jsonb_build_object('conflict', jsonb_build_array(stream.id, stream.expected, current_version));
        END IF;
      END LOOP;
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

/** 0014's feed trigger function, its prefixes (core's FEED_TYPE_PREFIXES) with company. and activity. */
const notifyFeed = `CREATE OR REPLACE FUNCTION ds_events_notify_feed() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      PERFORM pg_notify('dealstream_feed', json_build_object('_tag', 'Appended', 'workspaceId', w)::text)
        FROM (SELECT DISTINCT workspace_id AS w FROM appended
          WHERE type LIKE 'contact.%' OR type LIKE 'deal.%' OR type LIKE 'company.%' OR type LIKE 'activity.%') AS fed;
      RETURN NULL;
    END
    $f$`

export const migration: Migration = {
  id: 15,
  name: "companies and activities",
  statements: [
    ...table("ds_companies"),
    live("ds_companies", "created_at", [timestamp("created_at")]),
    live("ds_companies", "updated_at", [timestamp("updated_at")]),
    live("ds_companies", "name", [text("name")]),
    live("ds_companies", "domain", [text("domain")]),
    ...wordsOf("ds_companies", "ds_companies_words"),
    ...table("ds_activities"),
    live("ds_activities", "created_at", [timestamp("created_at")]),
    live("ds_activities", "updated_at", [timestamp("updated_at")]),
    live("ds_activities", "due_at", [timestamp("due_at")]),
    listing("ds_activities", "contact_ids"),
    listing("ds_activities", "deal_ids"),
    listing("ds_activities", "company_ids"),
    // A company's contact_ids and deal_ids, and ?company_id= on contacts and deals (contacts store
    // every company in company_ids; a btree on their company_id would cost each contact write).
    listing("ds_contacts", "company_ids"),
    live("ds_deals", "company_id", [text("company_id")]),
    commitFunction,
    notifyFeed
  ]
}
