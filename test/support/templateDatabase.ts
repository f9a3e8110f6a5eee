import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { migrate } from "../../packages/storage-pg/src/migrate.js"

/** `url` naming another database on the same server. */
export const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** A name no other run on the same server picks: engineers share one PostgreSQL 15. */
export const uniqueName = (prefix: string): string => `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`

/** One statement on its own connection, closed before this returns. */
export const onServer = (url: string, statement: string): Effect.Effect<void> =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }), (sql) => sql.unsafe(statement))
  ).pipe(Effect.provide(Reactivity.layer), Effect.asVoid, Effect.orDie)

// UTF8 whatever the server's default: text is compared by code point (COLLATE "C") in queries.
// Copies of the template inherit it.
export const EMPTY_DATABASE = "TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"

/**
 * The run's migrated template, built by the global setup from the migrations in the working tree
 * (never kept between runs, so a migration being written is in it). Every test database copies
 * it, which costs a file copy instead of running every migration in every test file. It takes no
 * connections once built: PostgreSQL refuses to copy a database anyone is connected to.
 */
export const createTemplate = (serverUrl: string): Effect.Effect<string> =>
  Effect.gen(function* () {
    const name = uniqueName("ds_template")
    yield* onServer(serverUrl, `CREATE DATABASE ${name} ${EMPTY_DATABASE}`)
    yield* Effect.scoped(
      Effect.flatMap(PgClient.make({ url: Redacted.make(withDatabase(serverUrl, name)), transformJson: false, maxConnections: 1 }), (sql) =>
        migrate(sql)
      )
    ).pipe(
      Effect.provide(Reactivity.layer),
      Effect.orDie,
      Effect.andThen(onServer(serverUrl, `ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`)),
      // A migration that fails fails the run; its half-built database is not left on a shared server.
      Effect.onError(() => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    )
    return name
  })

export const dropTemplate = (serverUrl: string, name: string): Effect.Effect<void> =>
  Effect.andThen(
    onServer(serverUrl, `ALTER DATABASE ${name} WITH IS_TEMPLATE false`),
    onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  )
