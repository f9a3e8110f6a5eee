import { PgStorage } from "@dealstream/storage-pg"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Redacted, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { inject } from "vitest"

/** The run's PostgreSQL server (see pgGlobalSetup.ts); a missing one is an error, never a skip. */
export const serverUrl = (): string => {
  const url = inject("databaseUrl")
  if (typeof url !== "string" || url === "") {
    throw new Error("no PostgreSQL for this run: vitest.config.ts must list test/support/pgGlobalSetup.ts in globalSetup")
  }
  return url
}

const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

const admin = (statement: string) =>
  Effect.scoped(
    Effect.flatMap(
      PgClient.make({ url: Redacted.make(serverUrl()), transformJson: false, maxConnections: 1 }),
      (sql) => sql.unsafe(statement)
    )
  ).pipe(Effect.provide(Reactivity.layer), Effect.orDie)

/**
 * A database of its own for the calling test file, dropped when the scope closes, so that files
 * run in parallel on one server without seeing each other's rows.
 */
export const testDatabase: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.gen(function*() {
    const name = `ds_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`
    // UTF8 whatever the server's default: text is compared by code point (COLLATE "C") in queries.
    yield* admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`)
    return { name, url: withDatabase(serverUrl(), name) }
  }),
  ({ name }) => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
).pipe(Effect.map(({ url }) => url))

/** PgStorage on a fresh database of its own. */
export const pgStorageLayer = Layer.unwrap(Effect.map(testDatabase, (url) => PgStorage.layer(url)))
