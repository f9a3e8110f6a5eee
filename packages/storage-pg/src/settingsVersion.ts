import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { tables } from "./tables.js"

const text = `SELECT version FROM ${tables.settingsVersions} WHERE workspace_id = $1`

/** One primary-key read; a workspace whose settings never changed has no row, and version 0. */
export const settingsVersion =
  (sql: SqlClient) =>
  (workspaceId: string): Effect.Effect<number, SqlError> =>
    Effect.map(sql.unsafe<{ readonly version: number }>(text, [workspaceId]), ([row]) => row?.version ?? 0)
