import type { Collection, LinkedDocuments, RecordRead } from "@dealstream/core"
import { Effect, Exit, Option, Request, RequestResolver } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { DocumentTableMap } from "./documentTableMap.js"
import { itself, onServer } from "./reader.js"
import { batchSql, type RecordRow, readRecord, recordOf } from "./readRecord.js"

interface RecordRequest extends Request.Request<RecordRead, SqlError> {
  readonly _tag: "RecordRequest"
  readonly collection: Collection
  readonly workspaceId: string
  readonly id: string
  readonly linked: LinkedDocuments | null
}
const RecordRequest = Request.tagged<RecordRequest>("RecordRequest")

/** Enough to amortise a statement's cost; more would only lengthen the batch's wait on its slowest row. */
const BATCH = 64

const shapeOf = (request: RecordRequest) =>
  request.linked === null ? request.collection : `${request.collection} ${request.linked.collection}.${request.linked.field}`

/** PostgreSQL refuses text holding NUL: such a read fails alone, not the batch it would join. */
const poisons = (text: string) => text.includes("\u0000")

/**
 * Record reads (a GET's one statement, readRecord.ts) that start in the same turn of the
 * scheduler, sent as one statement: under load a host's GETs cost PostgreSQL and the driver one
 * statement each, most of it the same work per statement (bench/ANALYSIS.md, issue 32). Only on one
 * server outside a transaction: a replica's routing or a snapshot's transaction belongs to one
 * caller, and a batch runs with the context of the caller that began it.
 */
export const batchedRecords = (sql: SqlClient, tableMap: DocumentTableMap) => {
  const one = readRecord(onServer(sql), tableMap)
  const resolver = RequestResolver.batchN(
    RequestResolver.makeGrouped<RecordRequest, string>({
      key: ({ request }) => shapeOf(request),
      resolver: (entries) => {
        const first = entries[0]!.request
        if (entries.length === 1)
          return Request.completeEffect(entries[0]!, one(first.collection, first.workspaceId, first.id, first.linked))
        const statement = batchSql(tableMap, first.collection, first.linked, itself)
        const read = sql.unsafe<RecordRow & { readonly n: number }>(statement, [
          entries.map((entry) => entry.request.workspaceId),
          entries.map((entry) => entry.request.id)
        ])
        // A failed statement fails every entry: the resolver's failure is each one's answer.
        return Effect.map(read, (rows) => {
          const byNumber = new Map(rows.map((row) => [Number(row.n), row]))
          entries.forEach((entry, i) => {
            const { collection, workspaceId } = entry.request
            entry.completeUnsafe(Exit.succeed(recordOf(collection, workspaceId, byNumber.get(i + 1))))
          })
        })
      }
    }),
    BATCH
  )
  return (collection: Collection, workspaceId: string, id: string, linked: LinkedDocuments | null): Effect.Effect<RecordRead, SqlError> =>
    Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) =>
      Option.isSome(transaction) || poisons(workspaceId) || poisons(id)
        ? one(collection, workspaceId, id, linked)
        : Effect.request(RecordRequest({ collection, workspaceId, id, linked }), resolver)
    )
}
