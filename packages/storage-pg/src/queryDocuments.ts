import type { Collection, DocumentQuery, StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { compileExpr } from "./compileExpr.js"
import { jsonTypeOf, scalarParam, valueSql } from "./fieldSql.js"
import { type DocumentRow, documentColumns, toStoredDocument } from "./internal/documentRow.js"
import { Params } from "./internal/params.js"
import { documentTables } from "./tables.js"

export interface CompiledQuery {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

/** A run of rows in page order: an extra condition and the ORDER BY that walks it. */
interface Part {
  readonly condition: string
  readonly order: string
}

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
 */
export const compileQuery = (collection: Collection, workspaceId: string, query: DocumentQuery): CompiledQuery => {
  const params = new Params()
  const table = documentTables[collection]
  const scope = query.scope === "live" ? "deleted_at IS NULL" : "deleted_at IS NOT NULL"
  const base = `workspace_id = ${params.add(workspaceId)} AND ${scope} AND ${compileExpr(query.where, params)}`
  const limit = params.add(Math.max(0, Math.floor(query.limit)))
  const v = valueSql(query.sort.field)
  const asc = query.sort.direction === "asc"
  const valueOrder = asc ? `${v} ASC NULLS LAST, id ASC` : `${v} DESC NULLS FIRST, id DESC`
  const idOrder = asc ? "id ASC" : "id DESC"
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
        ? [{ condition: `${absent} AND id > ${afterId}`, order: idOrder }]
        : [{ condition: `${absent} AND id < ${afterId}`, order: idOrder }, { condition: present, order: valueOrder }]
    }
    const type = jsonTypeOf(query.sort.field.type)
    if (type !== typeof after.value) {
      // A cursor value of another type (only a hand-made cursor has one) lies before or after all
      // present values at once, by core's type rank; absent values still follow it ascending.
      const presentBelow = type === null || rank[type] < rank[typeof after.value as keyof typeof rank]
      if (asc) {
        return presentBelow
          ? [{ condition: absent, order: idOrder }]
          : [{ condition: present, order: valueOrder }, { condition: absent, order: idOrder }]
      }
      return presentBelow ? [{ condition: present, order: valueOrder }] : []
    }
    const afterValue = scalarParam((value) => params.add(value), after.value)
    return asc
      ? [{ condition: `${present} AND (${v}, id) > (${afterValue}, ${afterId})`, order: valueOrder }, {
        condition: absent,
        order: idOrder
      }]
      : [{ condition: `${present} AND (${v}, id) < (${afterValue}, ${afterId})`, order: valueOrder }]
  })()

  const select = (part: Part, extra = "") =>
    `SELECT ${documentColumns}${extra} FROM ${table} WHERE ${base} AND ${part.condition} ORDER BY ${part.order} LIMIT ${limit}`
  const [first, second] = parts
  if (first === undefined) return { text: `SELECT ${documentColumns} FROM ${table} WHERE FALSE`, params: [] }
  if (second === undefined) return { text: select(first), params: params.values }
  const merged = asc ? "part, sort_value ASC NULLS LAST, id ASC" : "part, sort_value DESC NULLS FIRST, id DESC"
  return {
    text: `SELECT ${documentColumns} FROM ((${select(first, `, ${v} AS sort_value, 0 AS part`)})` +
      ` UNION ALL (${select(second, `, ${v} AS sort_value, 1 AS part`)})) AS page ORDER BY ${merged} LIMIT ${limit}`,
    params: params.values
  }
}

export const queryDocuments = (sql: SqlClient) =>
(
  collection: Collection,
  workspaceId: string,
  query: DocumentQuery
): Effect.Effect<ReadonlyArray<StoredDocument>, SqlError> =>
  Effect.flatMap(
    // A field name the compiler refuses is a defect of the caller, not a storage failure.
    Effect.sync(() => compileQuery(collection, workspaceId, query)),
    ({ params, text }) =>
      Effect.map(sql.unsafe<DocumentRow>(text, params), (rows) => rows.map((row) => toStoredDocument(collection, workspaceId, row)))
  )
