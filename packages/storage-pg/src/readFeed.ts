import type { ChangeFeedEvent, ChangeFeedPosition, ChangeFeedTypes } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { eventColumns, type EventRow, toStoredEvent } from "./internal/eventRow.js"
import { Params } from "./internal/params.js"
import { tables } from "./tables.js"

const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * The change feed of one workspace (ds_events_workspace_feed, migration 0013). Only events of
 * transactions below the xmin of the statement's snapshot are read: every transaction below it has
 * ended, so no event can still appear before the last one read (sequences are taken at insert, a
 * transaction holding a lower one may commit after one holding a higher). The approach of Emmett's
 * PostgreSQL readers; group commit puts several commits in one transaction, in sequence order.
 */
export const readFeed = (sql: SqlClient) =>
(options: {
  readonly workspaceId: string
  readonly after: ChangeFeedPosition | null
  readonly types: ChangeFeedTypes
  readonly limit: number
}): Effect.Effect<ReadonlyArray<ChangeFeedEvent>, SqlError> => {
  const params = new Params()
  const conditions = [`workspace_id = ${params.add(options.workspaceId)}`, `xact_id < pg_snapshot_xmin(pg_current_snapshot())`]
  if (options.after !== null) {
    conditions.push(
      `(xact_id, sequence) > (${params.add(options.after.transaction)}::xid8, ${params.add(String(options.after.sequence))}::bigint)`
    )
  }
  if (options.types.length > 0) {
    const exact = options.types.filter((pattern) => !pattern.endsWith(".*"))
    const prefixes = options.types.filter((pattern) => pattern.endsWith(".*")).map((pattern) => likePrefix(pattern.slice(0, -1)))
    conditions.push(`(type = ANY(${params.add(exact)}::text[]) OR type LIKE ANY(${params.add(prefixes)}::text[]))`)
  }
  const limit = params.add(Math.max(0, Math.floor(options.limit)))
  return Effect.map(
    sql.unsafe<EventRow & { readonly xact: string }>(
      `SELECT xact_id::text AS xact, ${eventColumns} FROM ${tables.events} WHERE ${conditions.join(" AND ")} ` +
        `ORDER BY xact_id, sequence LIMIT ${limit}`,
      params.values as Array<unknown>
    ),
    (rows) => rows.map((row) => ({ ...toStoredEvent(row), position: { transaction: row.xact, sequence: Number(row.sequence) } }))
  )
}
