import type { DocumentQuery, QueriedRow } from "./ast.js"
import { evaluate } from "./evaluate.js"
import { comparePositions, compareSortKeys, positionOf } from "./sortKeys.js"

/**
 * A page of a document query, computed in memory: the reference every storage must agree with.
 * live = not soft-deleted, deleted = soft-deleted; then `where`, the sort order, the rows strictly
 * after `after`, and at most `limit` of them.
 */
export const runQuery = <Row extends QueriedRow>(docs: Iterable<Row>, query: DocumentQuery): ReadonlyArray<Row> => {
  const { after, limit, scope, sort, where } = query
  const compare = comparePositions(sort.direction)
  const rows: Array<Row> = []
  for (const doc of docs) {
    if ((doc.deletedAt === null) !== (scope === "live")) continue
    if (!evaluate(where, doc.data)) continue
    if (after !== null && compare(positionOf(doc, sort.field), after) <= 0) continue
    rows.push(doc)
  }
  return rows.sort(compareSortKeys(sort)).slice(0, limit)
}
