import type { Migration } from "./Migration.js"

/**
 * Document tables, one per collection, all of one shape:
 * - `data`: the document as the API returns it;
 * - `deleted_at`: canonical ISO text, compared as text exactly like the memory adapter compares it;
 * - `unique_key`: core's key (the lowercased email of a live contact), unique per workspace;
 * - `search_words`: the words core computed for `search`;
 * - `folded`: JavaScript's lowercase of the string values it changes, for Contains/StartsWith.
 *
 * Every index leads with workspace_id (each query names one workspace; Citus could distribute by
 * it). List indexes are partial on live rows, the lists' scope, and their keys are the query
 * compiler's value expressions (fieldSql.ts) spelled identically, followed by id for the keyset.
 * The expressions below are a frozen copy of that module as of this migration.
 */

const isString = (key: string) => `jsonb_typeof(data -> '${key}') = 'string'`
const text = (key: string) => `((CASE WHEN ${isString(key)} THEN data ->> '${key}' END) COLLATE "C")`
const timestamp = (key: string) =>
  `((CASE WHEN ${isString(key)} AND (data ->> '${key}') COLLATE "C" ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$' THEN data ->> '${key}' END) COLLATE "C")`
const date = (key: string) =>
  `((CASE WHEN ${isString(key)} AND (data ->> '${key}') COLLATE "C" ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN data ->> '${key}' END) COLLATE "C")`
const number = (key: string) => `((CASE WHEN jsonb_typeof(data -> '${key}') = 'number' THEN (data -> '${key}')::numeric END))`

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
  // The trash list and the purge sweep read only soft-deleted rows.
  `CREATE INDEX ${name}_deleted ON ${name} (workspace_id, deleted_at, id) WHERE deleted_at IS NOT NULL`,
  // Partial: a null key (a soft-deleted contact) takes part in no uniqueness.
  `CREATE UNIQUE INDEX ${name}_unique_key ON ${name} (workspace_id, unique_key) WHERE unique_key IS NOT NULL`
]

const live = (table: string, name: string, keys: ReadonlyArray<string>) =>
  `CREATE INDEX ${table}_${name} ON ${table} (workspace_id, ${keys.join(", ")}, id) WHERE deleted_at IS NULL`

export const migration: Migration = {
  id: 2,
  name: "documents",
  statements: [
    // GIN over a btree-comparable column (workspace_id) next to the jsonb array.
    `CREATE EXTENSION IF NOT EXISTS btree_gin`,
    ...[
      "ds_contacts",
      "ds_deals",
      "ds_timeline_entries",
      "ds_pipelines",
      "ds_custom_fields",
      "ds_idempotency_keys",
      "ds_workspaces"
    ].flatMap(table),
    live("ds_contacts", "created_at", [timestamp("created_at")]),
    live("ds_contacts", "updated_at", [timestamp("updated_at")]),
    live("ds_contacts", "email", [text("email")]),
    live("ds_contacts", "first_name", [text("first_name")]),
    live("ds_contacts", "last_name", [text("last_name")]),
    live("ds_deals", "created_at", [timestamp("created_at")]),
    live("ds_deals", "updated_at", [timestamp("updated_at")]),
    live("ds_deals", "name", [text("name")]),
    live("ds_deals", "value", [number("value")]),
    live("ds_deals", "expected_close_date", [date("expected_close_date")]),
    // The board: a pipeline's deals, per stage, by value (and by pipeline alone, a prefix).
    live("ds_deals", "pipeline_stage_value", [text("pipeline_id"), text("stage_id"), number("value")]),
    live("ds_deals", "stage_created_at", [text("stage_id"), timestamp("created_at")]),
    // contact.deal_ids and ?contact_id= : which live deals list a contact.
    `CREATE INDEX ds_deals_contact_ids ON ds_deals USING gin (workspace_id, (data -> 'contact_ids') jsonb_path_ops) WHERE deleted_at IS NULL`,
    live("ds_timeline_entries", "deal_changed_at", [text("deal_id"), timestamp("changed_at")])
  ]
}
