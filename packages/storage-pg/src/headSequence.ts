import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { tables } from "./tables.js"

export const headSequenceSql = `SELECT coalesce(max(sequence), 0)::text AS head FROM ${tables.events}`

export const headSequence = (sql: SqlClient): Effect.Effect<number, SqlError> =>
  Effect.map(sql.unsafe<{ readonly head: string }>(headSequenceSql), ([row]) => Number(row?.head ?? 0))
