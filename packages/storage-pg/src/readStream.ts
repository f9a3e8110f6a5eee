import type { StoredEvent } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { eventColumns, type EventRow, toStoredEvent } from "./internal/eventRow.js"
import { tables } from "./tables.js"

/**
 * Read from ds_events_stream_version, (stream_id, stream_version): the stream's entries in version
 * order, entered at the version after `after`, so the tail of a long stream costs what it returns
 * (readStreamPlan.pg).
 */
export const readStreamSql = `SELECT ${eventColumns} FROM ${tables.events} WHERE stream_id = $1 AND stream_version > $2 ORDER BY stream_version`

/** The same, in one workspace's log: on Citus a router query to that workspace's worker. */
export const readWorkspaceStreamSql = `SELECT ${eventColumns} FROM ${tables.events} WHERE workspace_id = $3 AND stream_id = $1 AND stream_version > $2 ORDER BY stream_version`

export const readStream =
  (sql: SqlClient) =>
  (streamId: string, after = 0, workspaceId?: string): Effect.Effect<ReadonlyArray<StoredEvent>, SqlError> =>
    Effect.map(
      workspaceId === undefined
        ? sql.unsafe<EventRow>(readStreamSql, [streamId, after])
        : sql.unsafe<EventRow>(readWorkspaceStreamSql, [streamId, after, workspaceId]),
      (rows) => rows.map(toStoredEvent)
    )
