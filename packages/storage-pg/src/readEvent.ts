import type { StoredEvent } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { eventColumns, type EventRow, toStoredEvent } from "./internal/eventRow.js"
import { tables } from "./tables.js"

/** One event by its public id within its workspace (ds_events_workspace_event_id, migration 0014). */
export const readEvent =
  (sql: SqlClient) =>
  (workspaceId: string, eventId: string): Effect.Effect<StoredEvent | null, SqlError> =>
    Effect.map(
      sql.unsafe<EventRow>(`SELECT ${eventColumns} FROM ${tables.events} WHERE workspace_id = $1 AND metadata->>'eventId' = $2 LIMIT 1`, [
        workspaceId,
        eventId
      ]),
      (rows) => (rows.length === 0 ? null : toStoredEvent(rows[0]!))
    )
