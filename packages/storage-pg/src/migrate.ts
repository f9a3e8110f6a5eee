import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { applyFunctions } from "./applyFunctions.js"
import { functions, type StoredFunction } from "./functions/index.js"
import { type Migration, migrations } from "./migrations/index.js"
import { tables } from "./tables.js"

// Any constant shared by every dealstream host; it names the lock, nothing else.
const MIGRATION_LOCK = 7_302_145_617

/** A schema: versioned migrations (tables, indexes, data), then the stored functions' current texts. */
export interface Schema {
  readonly migrations: ReadonlyArray<Migration>
  /** Absent: the stored functions are left as they are (tests build earlier states of a database). */
  readonly functions?: ReadonlyArray<StoredFunction>
}

/** This host's schema. */
export const schema: Schema = { migrations, functions }

/** What one migrate applied: ids of migrations, names of stored functions. */
export interface Migrated {
  readonly migrations: ReadonlyArray<number>
  readonly functions: ReadonlyArray<string>
}

/**
 * Brings the schema up to date: one transaction holding a transaction-scoped advisory lock, so
 * hosts starting together run the migrations once, one after the other; the others wait, then find
 * nothing to do. Unlike PgMigrator, every missing id runs, not only ids above the latest applied.
 * Then the stored functions whose text changed (applyFunctions.ts), after every migration, so that
 * a migration has made what they name; unless the database holds a migration this host does not
 * know: a newer host migrated it, and its functions may name what only its migrations made, so an
 * older host leaves them as they are rather than set them back.
 */
export const migrate = (sql: SqlClient, target: Schema = schema): Effect.Effect<Migrated, SqlError> =>
  sql.withTransaction(
    Effect.gen(function* () {
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
      for (const migration of [...target.migrations].sort((a, b) => a.id - b.id)) {
        if (applied.has(migration.id)) continue
        for (const statement of migration.statements) yield* sql.unsafe(statement)
        yield* sql.unsafe(`INSERT INTO ${tables.migrations} (id, name) VALUES ($1, $2)`, [migration.id, migration.name])
        ran.push(migration.id)
      }
      const known = new Set(target.migrations.map((migration) => migration.id))
      const newer = [...applied].some((id) => !known.has(id))
      if (newer || target.functions === undefined) return { migrations: ran, functions: [] }
      return { migrations: ran, functions: yield* applyFunctions(sql, target.functions) }
    })
  )
