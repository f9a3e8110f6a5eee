import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { tables } from "./tables.js"

/**
 * One probe of ds_events_workspace_sequence (0012) from its end. On Citus a router query on the
 * workspace's worker, where its sequences come from: the whole log's head (headSequence.ts) would
 * scan every shard there, since the log's key leads with workspace_id.
 */
export const workspaceHeadSql = `SELECT coalesce(max(sequence), 0)::text AS head FROM ${tables.events} WHERE workspace_id = $1`

export const workspaceHead =
  (sql: SqlClient) =>
  (workspaceId: string): Effect.Effect<number, SqlError> =>
    Effect.map(sql.unsafe<{ readonly head: string }>(workspaceHeadSql, [workspaceId]), ([row]) => Number(row?.head ?? 0))
