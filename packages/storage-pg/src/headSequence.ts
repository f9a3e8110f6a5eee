import type { ChangeFeedPosition } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { tables } from "./tables.js"

/** The whole log's size, for a rebuild's progress; on Citus every shard answers its part. */
export const eventCountSql = `SELECT count(*)::text AS events FROM ${tables.events}`

export const eventCount = (sql: SqlClient): Effect.Effect<number, SqlError> =>
  Effect.map(sql.unsafe<{ readonly events: string }>(eventCountSql), ([row]) => Number(row?.events ?? 0))

/**
 * One workspace's last feed position: one step backwards from the end of its range of
 * ds_events_workspace_feed (0013), on Citus a router query. Where readWorkspaceLog's walks stop,
 * and the state a snapshot is given (snapshot.ts).
 */
export const workspaceHeadSql =
  `SELECT xact_id::text AS xact, sequence::text AS seq FROM ${tables.events} WHERE workspace_id = $1 ` +
  `ORDER BY xact_id DESC, sequence DESC LIMIT 1`

export const workspaceHead =
  (sql: SqlClient) =>
  (workspaceId: string): Effect.Effect<ChangeFeedPosition | null, SqlError> =>
    Effect.map(sql.unsafe<{ readonly xact: string; readonly seq: string }>(workspaceHeadSql, [workspaceId]), ([row]) =>
      row === undefined ? null : { transaction: row.xact, sequence: Number(row.seq) }
    )
