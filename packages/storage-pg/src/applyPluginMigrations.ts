import type { RecordTypePlugin } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { tables } from "./tables.js"

/** One plug-in migration migrate applied. */
export interface PluginMigrationApplied {
  readonly plugin: string
  readonly id: number
}

/**
 * Runs each plug-in migration (a plug-in's `postgres.migrations`) that ds_plugin_migrations does not
 * record under the plug-in's name, plug-in after plug-in in the order given, each one's in id order,
 * and records it. Part of migrate's transaction, after the engine's migrations (which made the
 * record table, and whatever a plug-in's table may name) and before the stored functions (which
 * write the plug-ins' tables). An id recorded that the plug-in no longer lists is left as it is: a
 * released migration is never undone, as the engine's are not.
 */
export const applyPluginMigrations = (
  sql: SqlClient,
  plugins: ReadonlyArray<RecordTypePlugin>
): Effect.Effect<ReadonlyArray<PluginMigrationApplied>, SqlError> =>
  Effect.gen(function* () {
    const applied = yield* appliedOf(sql)
    const ran: Array<PluginMigrationApplied> = []
    for (const plugin of plugins) {
      for (const migration of [...plugin.postgres.migrations].sort((a, b) => a.id - b.id)) {
        if (applied.has(`${plugin.name}\u0000${migration.id}`)) continue
        for (const statement of migration.statements) yield* sql.unsafe(statement)
        yield* sql.unsafe(`INSERT INTO ${tables.pluginMigrations} (plugin, id, name) VALUES ($1, $2, $3)`, [
          plugin.name,
          migration.id,
          migration.name
        ])
        ran.push({ plugin: plugin.name, id: migration.id })
      }
    }
    return ran
  })

const appliedOf = (sql: SqlClient): Effect.Effect<ReadonlySet<string>, SqlError> =>
  Effect.map(
    sql.unsafe<{ readonly plugin: string; readonly id: number }>(`SELECT plugin, id FROM ${tables.pluginMigrations}`),
    (rows) => new Set(rows.map((row) => `${row.plugin}\u0000${row.id}`))
  )

/** Whether any of the plug-ins' migrations is not yet applied. */
export const pluginMigrationsPending = (sql: SqlClient, plugins: ReadonlyArray<RecordTypePlugin>): Effect.Effect<boolean, SqlError> =>
  plugins.length === 0
    ? Effect.succeed(false)
    : Effect.map(appliedOf(sql), (applied) =>
        plugins.some((plugin) => plugin.postgres.migrations.some((migration) => !applied.has(`${plugin.name}\u0000${migration.id}`)))
      )
