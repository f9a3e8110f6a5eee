import type { Collection, DocumentQuery, LinkedDocuments, RecordRead, RecordsRead } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { fieldKey } from "./fieldSql.js"
import { documentColumns, type DocumentRow, toStoredDocument } from "./internal/documentRow.js"
import { compileQuery } from "./queryDocuments.js"
import type { DocumentTableMap } from "./documentTableMap.js"
import type { Named, Reader } from "./reader.js"
import { tables } from "./tables.js"

export interface RecordRow {
  readonly id: string | null
  readonly version: number | null
  readonly deleted_at: string | null
  readonly data: DocumentRow["data"] | null
  readonly settings_version: number
  readonly linked_ids: ReadonlyArray<string>
}

// A record read in one statement: a GET of a contact was three round trips (the settings version,
// the document, the deals naming it), a list page as many. $1 is the workspace in every statement
// here (compileQuery adds it first). Links a table keeps (the deals naming a contact: migration
// 0026) are a range of its key; any other link condition is the shape HasElement compiles to, so
// the GIN index on the linking array serves it, once per row.

const settingsVersionSql = (name: Named, workspace = "$1") =>
  `coalesce((SELECT v.version FROM ${name(tables.settingsVersions)} AS v WHERE v.workspace_id = ${workspace}), 0)`

const linkedSql = (tableMap: DocumentTableMap, linked: LinkedDocuments | null, id: string, name: Named, workspace = "$1") =>
  linked === null
    ? "'{}'::text[]"
    : linked.collection === "deal" && linked.field === "contact_ids"
      ? `ARRAY(SELECT k.deal_id FROM ${name(tables.dealContacts)} AS k WHERE k.workspace_id = ${workspace} AND k.contact_id = ${id} ORDER BY k.deal_id)`
      : `ARRAY(SELECT l.id FROM ${name(tableMap.table(linked.collection))} AS l WHERE l.workspace_id = ${workspace} AND l.deleted_at IS NULL ` +
        `AND (l.data -> ${fieldKey(linked.field)}) @> jsonb_build_array(${id}) ORDER BY l.id)`

const columnsOf = (alias: string) =>
  documentColumns
    .split(", ")
    .map((column) => `${alias}.${column}`)
    .join(", ")

const documentOf = (collection: Collection, workspaceId: string, row: RecordRow) =>
  row.id === null || row.version === null || row.data === null
    ? null
    : toStoredDocument(collection, workspaceId, { id: row.id, version: row.version, deleted_at: row.deleted_at, data: row.data })

/**
 * What a record read selects for the document `d` of `workspace` and `id` (SQL expressions), and the
 * join that finds it: a row of nulls but for the version and links when there is none.
 */
const recordRead = (
  tableMap: DocumentTableMap,
  collection: Collection,
  linked: LinkedDocuments | null,
  name: Named,
  workspace: string,
  id: string
) => ({
  columns: `${columnsOf("d")}, ${settingsVersionSql(name, workspace)} AS settings_version, ${linkedSql(tableMap, linked, id, name, workspace)} AS linked_ids`,
  join: `LEFT JOIN ${name(tableMap.table(collection))} AS d ON d.workspace_id = ${workspace} AND d.id = ${id}`
})

// The one-row FROM answers for an absent document too.
const recordSql = (tableMap: DocumentTableMap, collection: Collection, linked: LinkedDocuments | null, name: Named) => {
  const { columns, join } = recordRead(tableMap, collection, linked, name, "$1", "$2::text")
  return `SELECT ${columns} FROM (SELECT 1) AS one ${join}`
}

export const recordOf = (collection: Collection, workspaceId: string, row: RecordRow | undefined): RecordRead => ({
  document: row === undefined ? null : documentOf(collection, workspaceId, row),
  linkedIds: row?.linked_ids ?? [],
  settingsVersion: row?.settings_version ?? 0
})

/**
 * Records of several requests in one statement (recordBatches.ts): $1 the workspaces, $2 the ids,
 * each answered in a row numbered `n` from 1 in their order, a row of nulls for an absent one.
 */
export const batchSql = (tableMap: DocumentTableMap, collection: Collection, linked: LinkedDocuments | null, name: Named) => {
  const { columns, join } = recordRead(tableMap, collection, linked, name, "r.w", "r.i")
  return `SELECT r.n, ${columns} FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(w, i, n) ${join}`
}

/** A record with its settings version and links, in one statement, where `reader` reads. */
export const readRecord =
  (reader: Reader, tableMap: DocumentTableMap) =>
  (collection: Collection, workspaceId: string, id: string, linked: LinkedDocuments | null): Effect.Effect<RecordRead, SqlError> =>
    Effect.map(
      reader.rows<RecordRow>(workspaceId, (name) => ({ text: recordSql(tableMap, collection, linked, name), params: [workspaceId, id] })),
      ([row]) => recordOf(collection, workspaceId, row)
    )

/**
 * The page as queryDocuments compiles it, joined laterally to a one-row FROM so that an empty page
 * still answers the settings version (one row of nulls). `n` numbers the rows as the page's ORDER
 * BY yields them, and the outer ORDER BY keeps that order through the join.
 */
const pageSql = (
  tableMap: DocumentTableMap,
  collection: Collection,
  workspaceId: string,
  query: DocumentQuery,
  linked: LinkedDocuments | null,
  name: Named
) => {
  const { params, text } = compileQuery(tableMap, collection, workspaceId, query, name)
  return {
    text:
      `SELECT ${columnsOf("p")}, ${settingsVersionSql(name)} AS settings_version, ${linkedSql(tableMap, linked, "p.id", name)} AS linked_ids ` +
      `FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT page.*, row_number() OVER () AS n FROM (${text}) AS page) AS p ON TRUE ORDER BY p.n`,
    // A query that can match nothing compiles without parameters; the version still needs $1.
    params: params.length === 0 ? [workspaceId] : params
  }
}

/** A page of records with their links, and the settings version, in one statement, where `reader` reads. */
export const queryRecords =
  (reader: Reader, tableMap: DocumentTableMap) =>
  (
    collection: Collection,
    workspaceId: string,
    query: DocumentQuery,
    linked: LinkedDocuments | null
  ): Effect.Effect<RecordsRead, SqlError> =>
    Effect.map(
      reader.page<RecordRow>(workspaceId, (name) => pageSql(tableMap, collection, workspaceId, query, linked, name)),
      (rows) => ({
        rows: rows.flatMap((row) => {
          const document = documentOf(collection, workspaceId, row)
          return document === null ? [] : [{ document, linkedIds: row.linked_ids }]
        }),
        settingsVersion: rows[0]?.settings_version ?? 0
      })
    )
