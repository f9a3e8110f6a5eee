import { type Collection, type DocumentQuery, type FiguresQuery, isFiguresQuery, type StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { compileExpr, searchCandidates } from "./compileExpr.js"
import { jsonTypeOf, scalarParam, valueSql } from "./fieldSql.js"
import { type DocumentRow, documentColumns, toStoredDocument } from "./internal/documentRow.js"
import { Params } from "./internal/params.js"
import type { DocumentTableMap } from "./documentTableMap.js"
import { itself, type Named, type Reader, type Statement } from "./reader.js"
import { queryFigures } from "./figures.js"

/** A run of rows in page order: an extra condition and the ORDER BY that walks it. */
interface Part {
  readonly condition: string
  readonly order: string
}

/**
 * Up to this many candidate rows of a search's rarest term, a page is read from them by primary
 * key and sorted; beyond, by walking the sort index and testing each row, which then finds a page
 * after about limit × documents / candidates rows (for a million, 25 × 1M / 4,000 ≈ 6,000).
 */
const SEARCH_CANDIDATES = 4000

// core's typeRank: a cursor value of another type than the field's sorts booleans < numbers < strings.
const rank = { boolean: 0, number: 1, string: 2 } as const

/**
 * One page of a document query. Rows are ordered by (value, id) with absent values last ascending
 * and first descending, which is PostgreSQL's default `NULLS LAST` / `NULLS FIRST`, so every
 * ORDER BY here matches a `(workspace_id, value, id)` index scanned forwards or backwards.
 *
 * The keyset condition "after (v, i)" is split so that each part stays one index range: a row
 * comparison `(value, id) > (v, i)` over the present values, and `value IS NULL` for the absent
 * ones. When the rest of the page can hold both, each part is its own ordered scan with the limit,
 * and a UNION ALL of at most twice the limit puts them in order. A single `… OR value IS NULL`
 * would instead make the scan filter every row before the cursor, page after page.
 *
 * The absent part is ordered by (value, id) too, though its values are all null: that order is the
 * sort index's, whose `value IS NULL` range holds only the absent rows. Ordered by id alone it
 * walked the primary key, testing every row of the workspace for the null that none had (4 s a
 * page over a million contacts, so an export of them never ended).
 *
 * A collection without a words table (every plug-in's) is searched by the exact test alone: its
 * Search nodes read each row's `search_words` (compileExpr.ts), in the page's scan.
 */
export const compileQuery = (
  tableMap: DocumentTableMap,
  collection: Collection,
  workspaceId: string,
  query: DocumentQuery,
  name: Named = itself
): Statement => {
  const params = new Params()
  const table = name(tableMap.table(collection))
  const scope = query.scope === "live" ? "deleted_at IS NULL" : "deleted_at IS NOT NULL"
  const workspace = params.add(workspaceId)
  const base = `workspace_id = ${workspace} AND ${scope} AND ${compileExpr(query.where, params)}`
  // Cast as every parameter here is: on Citus the worker is given them as text (readOnWorker.ts).
  const limit = `${params.add(Math.max(0, Math.floor(query.limit)))}::int`
  const v = valueSql(query.sort.field)
  const asc = query.sort.direction === "asc"
  const valueOrder = asc ? `${v} ASC NULLS LAST, id ASC` : `${v} DESC NULLS FIRST, id DESC`
  const present = `${v} IS NOT NULL`
  const absent = `${v} IS NULL`

  const parts = ((): ReadonlyArray<Part> => {
    const after = query.after
    if (after === null) return [{ condition: "TRUE", order: valueOrder }]
    const afterId = `${params.add(after.id)}::text`
    if (after.value === null) {
      // Absent values come last ascending: only absent rows with a later id follow. Descending they
      // come first: absent rows with an earlier id, then every present row.
      return asc
        ? [{ condition: `${absent} AND id > ${afterId}`, order: valueOrder }]
        : [
            { condition: `${absent} AND id < ${afterId}`, order: valueOrder },
            { condition: present, order: valueOrder }
          ]
    }
    const type = jsonTypeOf(query.sort.field.type)
    if (type !== typeof after.value) {
      // A cursor value of another type (only a hand-made cursor has one) lies before or after all
      // present values at once, by core's type rank; absent values still follow it ascending.
      const presentBelow = type === null || rank[type] < rank[typeof after.value as keyof typeof rank]
      if (asc) {
        return presentBelow
          ? [{ condition: absent, order: valueOrder }]
          : [
              { condition: present, order: valueOrder },
              { condition: absent, order: valueOrder }
            ]
      }
      return presentBelow ? [{ condition: present, order: valueOrder }] : []
    }
    const afterValue = scalarParam((value) => params.add(value), after.value)
    return asc
      ? [
          { condition: `${present} AND (${v}, id) > (${afterValue}, ${afterId})`, order: valueOrder },
          {
            condition: absent,
            order: valueOrder
          }
        ]
      : [{ condition: `${present} AND (${v}, id) < (${afterValue}, ${afterId})`, order: valueOrder }]
  })()

  const page = (narrow: string): string | null => {
    const select = (part: Part, extra = "") =>
      `SELECT ${documentColumns}${extra} FROM ${table} WHERE ${base}${narrow} AND ${part.condition} ORDER BY ${part.order} LIMIT ${limit}`
    const [first, second] = parts
    if (first === undefined) return null
    if (second === undefined) return select(first)
    const merged = asc ? "part, sort_value ASC NULLS LAST, id ASC" : "part, sort_value DESC NULLS FIRST, id DESC"
    return (
      `SELECT ${documentColumns} FROM ((${select(first, `, ${v} AS sort_value, 0 AS part`)})` +
      ` UNION ALL (${select(second, `, ${v} AS sort_value, 1 AS part`)})) AS page ORDER BY ${merged} LIMIT ${limit}`
    )
  }
  // A search reads its candidates from the words table first, then one of two plans runs, the
  // other stopped by its one-time filter on the count: the planner cannot choose between them
  // itself, since a prepared statement's generic plan knows nothing of how common the terms are.
  const wordsTable = tableMap.words(collection)
  const words = wordsTable === undefined ? undefined : name(wordsTable)
  const candidates = words === undefined ? null : searchCandidates(query.where, { words, workspace }, params, SEARCH_CANDIDATES)
  const ids = "(SELECT ids FROM candidates)"
  const few = page(` AND cardinality(${ids}) <= ${SEARCH_CANDIDATES} AND id = ANY(${ids}::text[])`)
  const many = page(` AND cardinality(${ids}) > ${SEARCH_CANDIDATES}`)
  const plain = page("")
  if (plain === null) return { text: `SELECT ${documentColumns} FROM ${table} WHERE FALSE`, params: [] }
  if (candidates === null || few === null || many === null) return { text: plain, params: params.values }
  return {
    text:
      `WITH candidates AS MATERIALIZED (SELECT ${candidates} AS ids) SELECT ${documentColumns} FROM ((${few}) UNION ALL (${many})) AS gated ` +
      `ORDER BY ${valueOrder} LIMIT ${limit}`,
    params: params.values
  }
}

/** A page of documents, or the rows of a figures query (figures.ts), as core's port asks, where `reader` reads. */
export const queryDocuments =
  (reader: Reader, tableMap: DocumentTableMap) =>
  (
    collection: Collection,
    workspaceId: string,
    query: DocumentQuery | FiguresQuery
  ): Effect.Effect<ReadonlyArray<StoredDocument>, SqlError> =>
    isFiguresQuery(query)
      ? queryFigures(reader, tableMap)(collection, workspaceId, query)
      : Effect.map(
          reader.page<DocumentRow>(workspaceId, (name) => compileQuery(tableMap, collection, workspaceId, query, name)),
          (rows) => rows.map((row) => toStoredDocument(collection, workspaceId, row))
        )
