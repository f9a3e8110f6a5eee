import { type JsonObject, runQuery } from "@dealstream/core"
import { prop } from "@dealstream/core/testing"
import { expect } from "@effect/vitest"
import * as fc from "fast-check"
import { DocumentTable } from "./documentTable.js"
import { deletedAt, documentData, id, queryCase, queryOf } from "./testing/queryArbitraries.js"

/*
 * A table's indexed pages are runQuery's, whatever the writes since its indexes were built: rows
 * put, moved, trashed, restored and removed between queries of every sort, scope, filter, position
 * and limit. Each run asks a few queries again and again, so that their indexes live through the
 * writes in between. The tables keep 1 to 3 indexes in chunks of 2 to 4 rows, so indexes are also
 * dropped and built again, and walks cross chunks, with a handful of rows.
 */

interface Row {
  readonly id: string
  readonly deletedAt: string | null
  readonly data: JsonObject
}

type Op =
  | { readonly _tag: "Put"; readonly row: Row }
  | { readonly _tag: "Remove"; readonly id: string }
  /** One of the run's queries (the nth, modulo their number). */
  | { readonly _tag: "Query"; readonly which: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ id, deletedAt, data: documentData }).map((row) => ({ _tag: "Put" as const, row })) },
  { weight: 1, arbitrary: id.map((id) => ({ _tag: "Remove" as const, id })) },
  { weight: 3, arbitrary: fc.nat().map((which) => ({ _tag: "Query" as const, which })) }
)

prop(
  "a table's pages are runQuery's over its rows, through writes between queries",
  [
    fc.integer({ min: 1, max: 3 }),
    fc.integer({ min: 2, max: 4 }),
    fc.array(queryCase, { minLength: 1, maxLength: 3 }),
    fc.array(op, { maxLength: 80, size: "max" })
  ],
  ([maxIndexes, chunkSize, queries, ops]) => {
    const table = new DocumentTable<Row>({ maxIndexes, chunkSize })
    const model = new Map<string, Row>()
    for (const op of ops) {
      switch (op._tag) {
        case "Put":
          table.put(op.row.id, op.row)
          model.set(op.row.id, op.row)
          break
        case "Remove":
          table.put(op.id, undefined)
          model.delete(op.id)
          break
        case "Query": {
          const query = queryOf(queries[op.which % queries.length]!, [...model.values()])
          expect(table.query(query)).toEqual(runQuery([...model.values()], query))
        }
      }
    }
  },
  { fastCheck: { numRuns: 300 } }
)
