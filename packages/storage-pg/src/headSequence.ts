import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { tables } from "./tables.js"

/** The whole log's size, for a rebuild's progress; on Citus every shard answers its part. */
export const eventCountSql = `SELECT count(*)::text AS events FROM ${tables.events}`

export const eventCount = (sql: SqlClient): Effect.Effect<number, SqlError> =>
  Effect.map(sql.unsafe<{ readonly events: string }>(eventCountSql), ([row]) => Number(row?.events ?? 0))

/** One workspace's, from the end of its (workspace_id, sequence) index: on Citus a router query. */
export const workspaceHeadSequenceSql = `SELECT coalesce(max(sequence), 0)::text AS head FROM ${tables.events} WHERE workspace_id = $1`

export const workspaceHeadSequence =
  (sql: SqlClient) =>
  (workspaceId: string): Effect.Effect<number, SqlError> =>
    Effect.map(sql.unsafe<{ readonly head: string }>(workspaceHeadSequenceSql, [workspaceId]), ([row]) => Number(row?.head ?? 0))
