import type { DocumentQuery, QueriedRow } from "./ast.js"
import { encodeCursor } from "./cursor.js"
import { queryFingerprint } from "./fingerprint.js"
import { positionOf } from "./sortKeys.js"

/**
 * Cuts a page from rows fetched with `limit: query.limit + 1`: the extra row only tells that
 * another page exists, and the cursor points after the last row kept.
 */
export const paginate = <Row extends QueriedRow>(
  rows: ReadonlyArray<Row>,
  query: DocumentQuery
): { rows: ReadonlyArray<Row>; next_cursor: string | null } => {
  if (rows.length <= query.limit) return { rows, next_cursor: null }
  const kept = rows.slice(0, query.limit)
  const last = kept[kept.length - 1]
  if (last === undefined) return { rows: kept, next_cursor: null }
  const fingerprint = queryFingerprint(query.where, query.sort, query.scope)
  return { rows: kept, next_cursor: encodeCursor(fingerprint, positionOf(last, query.sort.field)) }
}
