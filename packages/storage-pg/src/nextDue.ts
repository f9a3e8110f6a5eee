import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { isPending, nextAttemptAt } from "./internal/queueSql.js"
import { documentTables } from "./tables.js"

/** The first entry of the pending partial index, leased or not. */
export const nextDueSql = `SELECT ${nextAttemptAt} AS due FROM ${documentTables.delivery} ` +
  `WHERE ${isPending} AND ${nextAttemptAt} IS NOT NULL ORDER BY ${nextAttemptAt} LIMIT 1`

export const nextDue = (sql: SqlClient): Effect.Effect<string | null, SqlError> =>
  Effect.map(
    sql.unsafe<{ readonly due: string }>(nextDueSql),
    ([row]) => row?.due ?? null
  )
