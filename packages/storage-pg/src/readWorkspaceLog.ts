import type { StoredEvent } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { eventColumns, type EventRow, toStoredEvent } from "./internal/eventRow.js"
import { tables } from "./tables.js"

const whole = (n: number) => String(Math.max(0, Math.floor(n)))

/**
 * One workspace's events in a range of positions: a walk of ds_events_workspace_sequence (0012),
 * on Citus a router query on the workspace's worker. `typed`: with the types as `$5`.
 */
export const readWorkspaceLogSql = (typed: boolean) =>
  `SELECT ${eventColumns} FROM ${tables.events} WHERE workspace_id = $1 AND sequence > $2::bigint AND sequence <= $3::bigint` +
  `${typed ? " AND type = ANY($5::text[])" : ""} ORDER BY sequence LIMIT $4::int`

export const readWorkspaceLog =
  (sql: SqlClient) =>
  (options: {
    readonly workspaceId: string
    readonly after: number
    readonly until: number
    readonly types?: ReadonlyArray<string>
    readonly limit: number
  }): Effect.Effect<ReadonlyArray<StoredEvent>, SqlError> => {
    const params: Array<unknown> = [options.workspaceId, whole(options.after), whole(options.until), whole(options.limit)]
    if (options.types !== undefined) params.push(options.types)
    return Effect.map(sql.unsafe<EventRow>(readWorkspaceLogSql(options.types !== undefined), params), (rows) => rows.map(toStoredEvent))
  }
