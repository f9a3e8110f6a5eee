import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { type Migration, migrations as all } from "./migrations/index.js"
import { tables } from "./tables.js"

// Any constant shared by every dealstream host; it names the lock, nothing else.
const MIGRATION_LOCK = 7_302_145_617

/**
 * Brings the schema up to date: one transaction holding a transaction-scoped advisory lock, so
 * hosts starting together run the migrations once, one after the other; the others wait, then find
 * nothing to do. Unlike PgMigrator, every missing id runs, not only ids above the latest applied.
 * Returns the ids it applied.
 */
export const migrate = (
  sql: SqlClient,
  migrations: ReadonlyArray<Migration> = all
): Effect.Effect<ReadonlyArray<number>, SqlError> =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`)
    yield* sql.unsafe(
      `CREATE TABLE IF NOT EXISTS ${tables.migrations} (
        id integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`
    )
    const rows = yield* sql.unsafe<{ readonly id: number }>(`SELECT id FROM ${tables.migrations}`)
    const applied = new Set(rows.map((row) => row.id))
    const ran: Array<number> = []
    for (const migration of [...migrations].sort((a, b) => a.id - b.id)) {
      if (applied.has(migration.id)) continue
      for (const statement of migration.statements) yield* sql.unsafe(statement)
      yield* sql.unsafe(`INSERT INTO ${tables.migrations} (id, name) VALUES ($1, $2)`, [migration.id, migration.name])
      ran.push(migration.id)
    }
    return ran
  }))
