import type { RecordTypePlugin } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { applyFunctions } from "./applyFunctions.js"
import { applyPluginMigrations, type PluginMigrationApplied, pluginMigrationsPending } from "./applyPluginMigrations.js"
import { pauseHereViews, resumeHereViews } from "./citusViews.js"
import { distributeFunctionsOnCitus, distributeOnCitus, isCitus } from "./citus.js"
import { builtInTables, type DocumentTableMap } from "./documentTableMap.js"
import { citusFunctionsOf, functionsOf, type StoredFunction } from "./functions/index.js"
import { type Migration, migrations } from "./migrations/index.js"
import { tables } from "./tables.js"

// Any constant shared by every dealstream host; it names the lock, nothing else.
const MIGRATION_LOCK = 7_302_145_617

/**
 * A schema: versioned migrations (tables, indexes, data), then the plug-ins' migrations, then the
 * stored functions' current texts.
 */
export interface Schema {
  readonly migrations: ReadonlyArray<Migration>
  /** Absent: the stored functions are left as they are (tests build earlier states of a database). */
  readonly functions?: ReadonlyArray<StoredFunction>
  /** The same on a Citus coordinator (functions/workspaceRows.ts); absent: `functions`. */
  readonly citusFunctions?: ReadonlyArray<StoredFunction>
  /** The record type plug-ins whose migrations apply (applyPluginMigrations.ts); absent: none. */
  readonly plugins?: ReadonlyArray<RecordTypePlugin>
  /** The generation of `citusFunctions`' views (functions/ds_shards_here.ts): the others are dropped. */
  readonly hereGeneration?: string
}

/** The schema of a host serving `tableMap`'s collections: the engine's, and its plug-ins' tables. */
export const schemaOf = (tableMap: DocumentTableMap): Schema => {
  const citus = citusFunctionsOf(tableMap)
  return {
    migrations,
    functions: functionsOf(tableMap),
    citusFunctions: citus.functions,
    plugins: tableMap.plugins,
    hereGeneration: citus.hereGeneration
  }
}

/** This host's schema without plug-ins. */
export const schema: Schema = schemaOf(builtInTables)

/** What one migrate applied: ids of migrations, names of stored functions. */
export interface Migrated {
  readonly migrations: ReadonlyArray<number>
  readonly functions: ReadonlyArray<string>
  /** The plug-ins' migrations, in the order applied; present only when the schema has plug-ins. */
  readonly pluginMigrations?: ReadonlyArray<PluginMigrationApplied>
}

/**
 * Brings the schema up to date: one transaction holding a transaction-scoped advisory lock, so
 * hosts starting together run the migrations once, one after the other; the others wait, then find
 * nothing to do. Unlike PgMigrator, every missing id runs, not only ids above the latest applied.
 * Then the plug-ins' migrations not yet applied (applyPluginMigrations.ts). On a Citus coordinator,
 * the tables not yet distributed are distributed by workspace (citus.ts). Then the stored
 * functions whose text changed (applyFunctions.ts), after every migration, so that a migration has
 * made what they name; unless the database holds an engine migration this host does not know: a
 * newer host migrated it, and its functions may name what only its migrations made, so an older
 * host leaves them as they are rather than set them back. That rule is the engine's alone: the
 * plug-ins' migrations apply whatever the engine's version, and every host sharing the database
 * runs the same plug-ins (functions/documentTableList.ts), a newer host's functions writing their
 * tables too.
 */
export const migrate = (sql: SqlClient, target: Schema = schema): Effect.Effect<Migrated, SqlError> =>
  Effect.flatMap(migrateInTransaction(sql, target), ({ migrated, citus, current }) =>
    citus && target.functions !== undefined
      ? Effect.as(resumeHereViews(sql, current ? target.hereGeneration : undefined), migrated)
      : Effect.succeed(migrated)
  )

const migrateInTransaction = (
  sql: SqlClient,
  target: Schema
): Effect.Effect<{ readonly migrated: Migrated; readonly citus: boolean; readonly current: boolean }, SqlError> =>
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
      // A migration that adds a trigger to a table Citus already distributes needs this (citus.ts).
      const citus = yield* isCitus(sql)
      if (citus) yield* sql.unsafe("SET LOCAL citus.enable_unsafe_triggers = on")
      const rows = yield* sql.unsafe<{ readonly id: number }>(`SELECT id FROM ${tables.migrations}`)
      const applied = new Set(rows.map((row) => row.id))
      const ran: Array<number> = []
      const pending = target.migrations.some((migration) => !applied.has(migration.id))
      // The engine's migrations made the plug-ins' record table: asked only once none is pending.
      if (citus && (pending || (yield* pluginMigrationsPending(sql, target.plugins ?? [])))) yield* pauseHereViews(sql)
      for (const migration of [...target.migrations].sort((a, b) => a.id - b.id)) {
        if (applied.has(migration.id)) continue
        for (const statement of migration.statements) yield* sql.unsafe(statement)
        yield* sql.unsafe(`INSERT INTO ${tables.migrations} (id, name) VALUES ($1, $2)`, [migration.id, migration.name])
        ran.push(migration.id)
      }
      const plugins = target.plugins ?? []
      const pluginMigrations = plugins.length === 0 ? {} : { pluginMigrations: yield* applyPluginMigrations(sql, plugins) }
      if (citus) yield* distributeOnCitus(sql)
      const known = new Set(target.migrations.map((migration) => migration.id))
      const newer = [...applied].some((id) => !known.has(id))
      if (newer || target.functions === undefined) {
        return { migrated: { migrations: ran, functions: [], ...pluginMigrations }, citus, current: false }
      }
      const functions = yield* applyFunctions(sql, citus ? (target.citusFunctions ?? target.functions) : target.functions)
      if (citus) yield* distributeFunctionsOnCitus(sql)
      return { migrated: { migrations: ran, functions, ...pluginMigrations }, citus, current: true }
    })
  )
