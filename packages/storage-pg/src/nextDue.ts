import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { isPending, nextAttemptAt } from "./internal/queueSql.js"
import { documentTables } from "./tables.js"

/**
 * When the next pending delivery becomes claimable: its due time, or the end of its lease when a
 * worker holds it. Counting a leased delivery as due "now" would make every idle worker poll until
 * the attempt in flight is recorded. The pending set is the queue, so this reads only that index.
 */
export const nextDueSql =
  `SELECT min(GREATEST(${nextAttemptAt}, coalesce(lease_until COLLATE "C", ''))) AS due ` +
  `FROM ${documentTables.delivery} WHERE ${isPending} AND ${nextAttemptAt} IS NOT NULL`

export const nextDue = (sql: SqlClient): Effect.Effect<string | null, SqlError> =>
  Effect.map(sql.unsafe<{ readonly due: string }>(nextDueSql), ([row]) => row?.due ?? null)
