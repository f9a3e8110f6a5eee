import { PgStorage } from "@dealstream/storage-pg"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Redacted, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { inject } from "vitest"
import { citusDatabase } from "./citusDatabase.js"
import { EMPTY_DATABASE, onServer, uniqueName, withDatabase } from "./templateDatabase.js"

/**
 * The run's PostgreSQL server (see pgGlobalSetup.ts); a missing one is an error, never a skip. In
 * the `citus` project, the cluster's coordinator (citusGlobalSetup.ts), which clients connect to.
 */
export const serverUrl = (): string => {
  const ports = inject("citusPorts")
  if (ports !== undefined) return `postgres://postgres@127.0.0.1:${ports[0]}/postgres`
  const url = inject("databaseUrl")
  if (typeof url !== "string" || url === "") {
    throw new Error("no PostgreSQL for this run: vitest.config.ts must list test/support/pgGlobalSetup.ts in globalSetup")
  }
  return url
}

const templateName = (): string => {
  const name = inject("templateDatabase")
  if (typeof name !== "string" || name === "") {
    throw new Error("no template database for this run: test/support/pgGlobalSetup.ts builds it")
  }
  return name
}

const databaseFrom = (template: () => string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const name = uniqueName("ds_test")
      yield* onServer(serverUrl(), `CREATE DATABASE ${name} ${template()}`)
      return { name, url: withDatabase(serverUrl(), name) }
    }),
    ({ name }) => onServer(serverUrl(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  ).pipe(Effect.map(({ url }) => url))

/** Whether this run's PostgreSQL suites run on a Citus cluster (the `citus` project, citusGlobalSetup.ts). */
export const onCitus = (): boolean => inject("citusPorts") !== undefined

/**
 * A database of its own for the calling test file, already migrated (a copy of the run's template),
 * dropped when the scope closes, so that files run in parallel on one server without seeing each
 * other's rows. In the `citus` project it is a database of the run's cluster instead, which the
 * storage that first opens it migrates, and so distributes (citusDatabase.ts).
 */
export const testDatabase: Effect.Effect<string, never, Scope.Scope> = Effect.suspend(() =>
  onCitus() ? citusDatabase : databaseFrom(() => `TEMPLATE ${templateName()}`)
)

/** As testDatabase, but empty: for the tests of the migrations themselves. */
export const emptyDatabase: Effect.Effect<string, never, Scope.Scope> = databaseFrom(() => EMPTY_DATABASE)

/** PgStorage on a fresh database of its own. */
export const pgStorageLayer = Layer.unwrap(Effect.map(testDatabase, (url) => PgStorage.layer(url)))

/** A bare PgClient on a fresh database of its own: for the plan tests, which seed by SQL and read EXPLAIN. */
export const testSqlLayer: Layer.Layer<PgClient.PgClient> = Layer.unwrap(
  Effect.map(testDatabase, (url) =>
    Layer.effect(PgClient.PgClient, PgClient.make({ url: Redacted.make(url), transformJson: false })).pipe(
      Layer.provide(Reactivity.layer),
      Layer.orDie
    )
  )
)
