import type { Collection, DocumentUpsert, JsonObject, StoredDocument } from "@dealstream/core"
import { documentTables } from "../tables.js"

/** The columns every document table has (see migrations/0002_documents.ts). */
export const documentColumns = "id, version, deleted_at, data"

export interface DocumentRow {
  readonly id: string
  readonly version: number
  readonly deleted_at: string | null
  readonly data: JsonObject
}

export const toStoredDocument = (collection: Collection, workspaceId: string, row: DocumentRow): StoredDocument => ({
  collection,
  workspaceId,
  id: row.id,
  version: row.version,
  deletedAt: row.deleted_at,
  data: row.data
})

/**
 * The JavaScript `toLowerCase()` of each top-level string value that lowercasing changes. Contains
 * and StartsWith compare these, so case folding is exactly the evaluator's: PostgreSQL's lower()
 * follows the server's ICU or libc tables (ICU 60 in the embedded build folds neither Georgian
 * Mtavruli nor letters added since Unicode 10), and under COLLATE "C" it folds ASCII only.
 */
export const foldedOf = (data: JsonObject): JsonObject => {
  const folded: Record<string, string> = {}
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== "string") continue
    const lower = value.toLowerCase()
    if (lower !== value) folded[key] = lower
  }
  return folded
}

/** An upsert as one element of the JSON array the write statements unpack with jsonb_to_recordset. */
export const upsertRecord = (write: DocumentUpsert, i: number) => ({
  i,
  w: write.workspaceId,
  id: write.id,
  v: write.version,
  del: write.deletedAt,
  d: write.data,
  u: write.uniqueKey,
  s: write.searchWords,
  f: foldedOf(write.data)
})

/** The record type of `upsertRecord` for `jsonb_to_recordset(…) AS e(…)`. */
export const upsertRecordType = "i int, w text, id text, v int, del text, d jsonb, u text, s text[], f jsonb"

/** Every column of a document table, in the order the write statements list them. */
export const documentRowColumns = "workspace_id, id, version, deleted_at, data, unique_key, search_words, folded"

/**
 * An upsert's conflict clause: the new row replaces the stored one. A replaced delivery loses its
 * lease (see DeliveryQueue in core): the claim and the upsert lock the same row, so a claim that ran
 * first has its lease cleared here, and one that comes after re-reads the committed row.
 */
export const replaceOnConflict = (table: string) =>
  `ON CONFLICT (workspace_id, id) DO UPDATE SET version = excluded.version, deleted_at = excluded.deleted_at, ` +
  `data = excluded.data, unique_key = excluded.unique_key, search_words = excluded.search_words, folded = excluded.folded` +
  (table === documentTables.delivery ? `, lease_owner = NULL, lease_until = NULL` : "")

/** Inserts `$records` (upsertRecord elements) into a document table, replacing rows with the same id. */
export const upsertSql = (table: string, records: string, filter: string, from = "") =>
  `INSERT INTO ${table} AS t (${documentRowColumns}) ` +
  `SELECT e.w, e.id, e.v, e.del, e.d, e.u, coalesce(e.s, '{}'), e.f ` +
  `FROM jsonb_to_recordset(${records}::jsonb) AS e(${upsertRecordType})${from} WHERE ${filter} ORDER BY e.i ` +
  replaceOnConflict(table)
