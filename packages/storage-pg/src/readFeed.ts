import {
  type ChangeFeedPage,
  type ChangeFeedPosition,
  type ChangeFeedTypes,
  compareChangeFeedPositions,
  feedThrough
} from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { type FeedBound, workspaceWriters } from "./feedBound.js"
import { eventColumns, type EventRow, toStoredEvent } from "./internal/eventRow.js"
import { Params } from "./internal/params.js"
import { tables } from "./tables.js"

const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** What a read of the change feed asks for. */
export interface FeedRead {
  readonly workspaceId: string
  readonly after: ChangeFeedPosition | null
  readonly types: ChangeFeedTypes
  readonly limit: number
}

/**
 * The change feed of one workspace (ds_events_workspace_feed, migration 0013). Only events of
 * transactions below the bound (feedBound.ts) are read: none of the transactions below it can still
 * add an event to this workspace's feed, so none can appear before the last one read (sequences are
 * taken at insert, a transaction holding a lower one may commit after one holding a higher). Emmett's
 * PostgreSQL readers take the snapshot's xmin, which any open transaction on the server holds back;
 * this bound waits only for this workspace's own commits. Group commit puts several commits in one
 * transaction, in sequence order.
 */
export const readFeed =
  (sql: SqlClient, bound: FeedBound = workspaceWriters) =>
  (options: FeedRead): Effect.Effect<ChangeFeedPage, SqlError> => {
    const once = readFeedOnce(sql, bound)(options)
    const read = (again: number): Effect.Effect<ChangeFeedPage, SqlError> =>
      Effect.flatMap(once, ({ ended, page }) => (ended && again > 0 ? read(again - 1) : Effect.succeed(page)))
    return read(3)
  }

/**
 * One statement of readFeed: the page, and whether the bound was held back by a transaction that
 * ended during the statement (`ended`, feedBound.ts), when the read is worth making again. On
 * Citus `ended` also says that the bound's offset era no longer holds (citusFeed.ts).
 */
export const readFeedOnce =
  (sql: SqlClient, bound: FeedBound) =>
  (options: FeedRead): Effect.Effect<{ readonly page: ChangeFeedPage; readonly ended: boolean }, SqlError> => {
    const params = new Params()
    const workspace = params.add(options.workspaceId)
    const visible = `workspace_id = ${workspace} AND xact_id < (SELECT below FROM bound)`
    const conditions = [visible]
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
    const limit = Math.max(0, Math.floor(options.limit))
    // The page's events (tail false), the last event of the workspace the same snapshot sees (tail
    // true: one more step of the index, backwards, where a page that is not full lets the next read
    // start), and one row (tail null) saying whether the bound was held back by a transaction that
    // ended during the statement.
    const statement = sql.unsafe<EventRow & { readonly xact: string; readonly tail: boolean | null; readonly ended: boolean }>(
      `WITH ${bound(workspace)} ` +
        `(SELECT xact_id::text AS xact, ${eventColumns}, false AS tail, false AS ended FROM ${tables.events} WHERE ${conditions.join(" AND ")} ` +
        `ORDER BY xact_id, sequence LIMIT ${params.add(limit)}) ` +
        `UNION ALL (SELECT xact_id::text AS xact, ${eventColumns}, true AS tail, false AS ended FROM ${tables.events} WHERE ${visible} ` +
        `ORDER BY xact_id DESC, sequence DESC LIMIT 1) ` +
        `UNION ALL (SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ended FROM bound)`,
      params.values as Array<unknown>
    )
    return Effect.map(statement, (rows) => {
      const position = (row: { readonly xact: string; readonly sequence: bigint }): ChangeFeedPosition => ({
        transaction: row.xact,
        sequence: Number(row.sequence)
      })
      const events = rows
        .filter((row) => row.tail === false)
        .map((row) => ({ ...toStoredEvent(row), position: position(row) }))
        .sort((a, b) => compareChangeFeedPositions(a.position, b.position))
      const tail = rows.find((row) => row.tail === true)
      return {
        page: { events, through: feedThrough(events, limit, options.after, tail === undefined ? null : position(tail)) },
        ended: rows.some((row) => row.tail === null && row.ended)
      }
    })
  }
