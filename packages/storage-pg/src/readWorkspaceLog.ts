import type { StoredEvent } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { eventColumns, type EventRow, toStoredEvent } from "./internal/eventRow.js"
import { tables } from "./tables.js"

const whole = (n: number) => String(Math.max(0, Math.floor(n)))

/** One workspace's events in a range of positions: a walk of ds_events_workspace_sequence (0012). */
export const readWorkspaceLog =
  (sql: SqlClient) =>
  (options: {
    readonly workspaceId: string
    readonly after: number
    readonly until: number
    readonly types?: ReadonlyArray<string>
    readonly limit: number
  }): Effect.Effect<ReadonlyArray<StoredEvent>, SqlError> => {
    const typed = options.types === undefined ? "" : " AND type = ANY($5::text[])"
    const params: Array<unknown> = [options.workspaceId, whole(options.after), whole(options.until), whole(options.limit)]
    if (options.types !== undefined) params.push(options.types)
    return Effect.map(
      sql.unsafe<EventRow>(
        `SELECT ${eventColumns} FROM ${tables.events} WHERE workspace_id = $1 AND sequence > $2::bigint AND sequence <= $3::bigint${typed} ` +
          `ORDER BY sequence LIMIT $4::int`,
        params
      ),
      (rows) => rows.map(toStoredEvent)
    )
  }
