import { PgStorage } from "@dealstream/storage-pg"
import { Effect, Layer, type Scope } from "effect"
import { inject } from "vitest"
import { citusDatabaseOn, dropCitusDatabase } from "./citusCluster.js"

const ports = (): ReadonlyArray<number> => {
  const given = inject("citusPorts")
  if (given === undefined || given.length < 2) throw new Error("no Citus cluster for this run: the citus project's globalSetup starts it")
  return given
}

/** A Citus database of its own for the calling file, on every node of the run's cluster, dropped with the scope. */
export const citusDatabase: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(() => citusDatabaseOn(ports())),
  (url) => Effect.promise(() => dropCitusDatabase(ports(), url))
)

/** PgStorage on a fresh Citus database, migrated (and so distributed) by the storage itself. */
export const citusStorageLayer = Layer.unwrap(Effect.map(citusDatabase, (url) => PgStorage.layer(url)))
