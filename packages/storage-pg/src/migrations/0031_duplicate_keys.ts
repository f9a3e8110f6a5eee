import { duplicateKeyCollections, duplicateKeys } from "../functions/duplicateKeys.js"
import type { Migration } from "./Migration.js"

/**
 * Finding duplicates from an index (API.md, "Merge and duplicates"; issue 28): per collection, the
 * duplicate keys of each live document (core's record/duplicateKeys.ts says which), and per key how
 * many live documents hold it, with a partial index of the keys more than one holds. A page of
 * groups is then one range of that index and, per group, one range of the keys: no scan of the
 * workspace's records, however many there are.
 *
 * The keys are computed here in SQL from `data` and `folded` (which holds JavaScript's lowercase of
 * every string that lowercasing changes, so `coalesce(folded ->> f, data ->> f)` is exactly core's
 * toLowerCase()); core computes the same for memory storage, and a property holds the two to one
 * answer. Row triggers keep both tables in the commit that writes the document, as the search
 * words' do (migration 0011): an update fires only when the data or the deletion changed, then
 * removes the keys it lost and adds those it gained. The triggers come first, so the fill below
 * misses no write.
 */

const CUT = 200

/** ASCII whitespace off both ends, as core's trim. */
const trimmed = (value: string) => `regexp_replace(${value}, '^[ \\t\\n\\r\\f\\v]+|[ \\t\\n\\r\\f\\v]+$', '', 'g')`

/** JavaScript's lowercase of a top-level string field, trimmed ('' when absent or not a string). */
const lowered = (field: string) =>
  trimmed(`coalesce(folded ->> '${field}', CASE WHEN jsonb_typeof(data -> '${field}') = 'string' THEN data ->> '${field}' END, '')`)

/**
 * The statement making a contact's key function, whose `companies` is a jsonb array expression of
 * `data` (its string elements are the companies). Migration 0032 makes it again with the companies
 * it should have had: this migration's also took a contact's `company_id` when it had no
 * `company_ids`, which for a contact of before is free text, not a company.
 */
export const contactKeysFunction = (create: "CREATE" | "CREATE OR REPLACE", companies: string) =>
  `${create} FUNCTION ds_contact_duplicate_keys(data jsonb, folded jsonb) RETURNS TABLE (rule text, key text)
    LANGUAGE sql IMMUTABLE AS $$
    WITH v AS (
      SELECT CASE WHEN jsonb_typeof(data -> 'phone') = 'string' THEN regexp_replace(data ->> 'phone', '[^0-9]', '', 'g') ELSE '' END AS phone,
        ${lowered("first_name")} AS first, ${lowered("last_name")} AS last,
        ${companies} AS companies
    )
    SELECT DISTINCT k.rule, left(k.key, ${CUT}) FROM (
      SELECT 'phone' AS rule, phone AS key FROM v WHERE length(phone) >= 7
      UNION ALL SELECT 'name_company', (c.value #>> '{}') || ' ' || first || ' ' || last
        FROM v, jsonb_array_elements(v.companies) AS c(value)
        WHERE (first <> '' OR last <> '') AND jsonb_typeof(c.value) = 'string'
    ) AS k
  $$`

const keyFunctions = [
  contactKeysFunction(
    "CREATE",
    `CASE WHEN jsonb_typeof(data -> 'company_ids') = 'array' THEN data -> 'company_ids'
          WHEN jsonb_typeof(data -> 'company_id') = 'string' THEN jsonb_build_array(data -> 'company_id')
          ELSE '[]'::jsonb END`
  ),
  `CREATE FUNCTION ds_company_duplicate_keys(data jsonb, folded jsonb) RETURNS TABLE (rule text, key text)
    LANGUAGE sql IMMUTABLE AS $$
    WITH v AS (SELECT regexp_replace(${lowered("domain")}, '^www\\.', '') AS domain, ${lowered("name")} AS name)
    SELECT DISTINCT k.rule, left(k.key, ${CUT}) FROM (
      SELECT 'domain' AS rule, domain AS key FROM v WHERE domain <> ''
      UNION ALL SELECT 'name', name FROM v WHERE name <> ''
    ) AS k
  $$`
]

const duplicatesOf = ({ table, type }: { readonly table: string; readonly type: string }) => {
  const keys = `${table}_duplicate_keys`
  const groups = `${table}_duplicate_groups`
  const fn = `ds_${type}_duplicate_keys`
  return [
    `CREATE TABLE ${keys} (
      workspace_id text COLLATE "C" NOT NULL,
      rule text COLLATE "C" NOT NULL,
      key text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL
    )`,
    `CREATE TABLE ${groups} (
      workspace_id text COLLATE "C" NOT NULL,
      rule text COLLATE "C" NOT NULL,
      key text COLLATE "C" NOT NULL,
      n integer NOT NULL
    )`,
    // The triggers' functions, as functions/duplicateKeys.ts writes them on one server.
    ...duplicateKeys("plain")
      .filter((f) => f.name.startsWith(`${keys}_`))
      .map((f) => f.text),
    `CREATE TRIGGER ${keys}_inserted AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${keys}_inserted()`,
    `CREATE TRIGGER ${keys}_updated AFTER UPDATE ON ${table} FOR EACH ROW
      WHEN (OLD.data IS DISTINCT FROM NEW.data OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at) EXECUTE FUNCTION ${keys}_updated()`,
    `CREATE TRIGGER ${keys}_deleted AFTER DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${keys}_deleted()`,
    `CREATE TRIGGER ${keys}_truncated AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${keys}_truncated()`,
    `INSERT INTO ${keys} (workspace_id, rule, key, id)
      SELECT t.workspace_id, x.rule, x.key, t.id FROM ${table} AS t, ${fn}(t.data, t.folded) AS x WHERE t.deleted_at IS NULL`,
    `INSERT INTO ${groups} (workspace_id, rule, key, n) SELECT workspace_id, rule, key, count(*) FROM ${keys} GROUP BY 1, 2, 3`,
    `ALTER TABLE ${keys} ADD PRIMARY KEY (workspace_id, rule, key, id)`,
    `ALTER TABLE ${groups} ADD PRIMARY KEY (workspace_id, rule, key)`,
    `CREATE INDEX ${groups}_shared ON ${groups} (workspace_id, rule, key) WHERE n > 1`,
    `ANALYZE ${keys}`,
    `ANALYZE ${groups}`
  ]
}

/**
 * The key functions this migration creates, which live here rather than in functions/: the fill
 * above needs them as the migration runs, before the functions step. The schema tests know them by
 * this list.
 */
export const DUPLICATE_FUNCTIONS = ["ds_contact_duplicate_keys", "ds_company_duplicate_keys"]

export const migration: Migration = {
  id: 31,
  name: "duplicate keys",
  statements: [...keyFunctions, ...duplicateKeyCollections.flatMap(duplicatesOf)]
}
