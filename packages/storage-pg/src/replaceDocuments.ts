import type { Collection, DocumentWrite } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { upsertRecord, upsertSql } from "./internal/documentRow.js"
import type { DocumentTableMap } from "./documentTableMap.js"

// Rows per INSERT: a rebuild takes a few statements per thousand documents, and one statement's
// JSON stays around a megabyte at most.
const BATCH = 500

/**
 * Rebuild: the named collections' tables emptied and refilled in one transaction, so readers see
 * the old documents or the new ones, never a mix (TRUNCATE holds its lock until the commit).
 * On Citus (`distributed`) the tables are emptied by DELETE: a TRUNCATE's triggers empty the words
 * and figures tables whole, which from a shard reaches every other worker's shards and deadlocks
 * with the TRUNCATE itself; DELETE's row triggers touch only the colocated rows of each shard.
 */
export const replaceDocuments =
  (sql: SqlClient, tableMap: DocumentTableMap, distributed = false) =>
  (collections: ReadonlyArray<Collection>, writes: ReadonlyArray<DocumentWrite>): Effect.Effect<void, SqlError> =>
    sql.withTransaction(
      Effect.gen(function* () {
        const dropped = [...new Set(collections)].map((c) => tableMap.table(c))
        // Applied in order, the last write of a document wins, as when they are written one by one.
        const last = new Map<string, DocumentWrite>()
        for (const write of writes) {
          const slot = `${write.collection}\u0000${write.workspaceId}\u0000${write.id}`
          last.delete(slot)
          last.set(slot, write)
        }
        // Every table looked up before the first statement: a write to a collection without one is
        // a defect that leaves the tables as they were.
        const written = [...new Set([...last.values()].map((w) => w.collection))].map((c) => [c, tableMap.table(c)] as const)
        if (dropped.length > 0 && !distributed) yield* sql.unsafe(`TRUNCATE ${dropped.join(", ")}`)
        if (distributed) for (const table of dropped) yield* sql.unsafe(`DELETE FROM ${table}`)
        for (const [collection, table] of written) {
          const mine = [...last.values()].filter((w) => w.collection === collection)
          const removes = mine.filter((w) => w._tag === "Remove")
          if (removes.length > 0) {
            yield* sql.unsafe(
              `DELETE FROM ${table} t USING unnest($1::text[], $2::text[]) AS r(w, id) WHERE t.workspace_id = r.w AND t.id = r.id`,
              [removes.map((r) => r.workspaceId), removes.map((r) => r.id)]
            )
          }
          const upserts = mine.flatMap((w) => (w._tag === "Upsert" ? [w] : []))
          for (let start = 0; start < upserts.length; start += BATCH) {
            const records = JSON.stringify(upserts.slice(start, start + BATCH).map(upsertRecord))
            yield* sql.unsafe(upsertSql(table, "$1", "TRUE"), [records])
          }
        }
      })
    )
