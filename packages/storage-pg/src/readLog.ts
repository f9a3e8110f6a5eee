import type { StoredEvent } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { eventColumns, type EventRow, toStoredEvent } from "./internal/eventRow.js"
import { tables } from "./tables.js"

const text = `SELECT ${eventColumns} FROM ${tables.events} WHERE sequence > $1 ORDER BY sequence LIMIT $2`

/**
 * Events after a position. Sequences are taken when a commit runs, not when it becomes visible, so
 * a commit still in flight may later fill a gap below a position already read: fine for rebuilds
 * (which run on a quiet log) but not for a follower that must never skip an event.
 */
export const readLog =
  (sql: SqlClient) =>
  (options: { readonly after: number; readonly limit: number }): Effect.Effect<ReadonlyArray<StoredEvent>, SqlError> =>
    Effect.map(
      sql.unsafe<EventRow>(text, [String(Math.max(0, Math.floor(options.after))), Math.max(0, Math.floor(options.limit))]),
      (rows) => rows.map(toStoredEvent)
    )
