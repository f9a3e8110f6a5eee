import { Storage, type StorageService } from "@dealstream/core"
import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlClient } from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Clock, Duration, Effect, Layer, Redacted, type Scope } from "effect"
import { commit } from "./commit.js"
import { DatabaseError, orUnavailable, reasonOf, targetOf } from "./errors.js"
import { getDocument } from "./getDocument.js"
import { listDeletedBefore } from "./listDeletedBefore.js"
import { migrate } from "./migrate.js"
import { queryDocuments } from "./queryDocuments.js"
import { readLog } from "./readLog.js"
import { readStream } from "./readStream.js"
import { replaceDocuments } from "./replaceDocuments.js"
import { headSequence } from "./headSequence.js"

export interface Options {
  /** `postgres://user:password@host:port/database` */
  readonly url: string
  /** Pool size of this host. Default 10. */
  readonly maxConnections?: number
  /** How long to wait for the first connection. Default 5 seconds. */
  readonly connectTimeout?: Duration.DurationInput
}

/** The storage port over a connected, migrated database. */
export const fromClient = (sql: SqlClient): StorageService => ({
  // recordedAt comes from Effect's Clock, as in the memory adapter, so tests on TestClock see the
  // same times on either storage.
  commit: (input) =>
    Clock.currentTimeMillis.pipe(
      Effect.flatMap((now) => commit(sql)(input, new Date(now).toISOString())),
      orUnavailable
    ),
  readStream: (streamId) => orUnavailable(readStream(sql)(streamId)),
  readLog: (options) => orUnavailable(readLog(sql)(options)),
  getDocument: (collection, workspaceId, id) => orUnavailable(getDocument(sql)(collection, workspaceId, id)),
  queryDocuments: (collection, workspaceId, query) => orUnavailable(queryDocuments(sql)(collection, workspaceId, query)),
  listDeletedBefore: (collection, cutoff, limit) => orUnavailable(listDeletedBefore(sql)(collection, cutoff, limit)),
  replaceDocuments: (collections, writes) => orUnavailable(replaceDocuments(sql)(collections, writes)),
  headSequence: orUnavailable(headSequence(sql)),
  ping: orUnavailable(Effect.asVoid(sql.unsafe("SELECT 1")))
})

/**
 * Connects a pool, brings the schema up to date and returns the storage; the pool closes with the
 * scope. Keys inside jsonb stay exactly as written: no name transforms, transformJson off.
 */
export const make = (options: Options | string): Effect.Effect<StorageService, DatabaseError, Scope.Scope> => {
  const { connectTimeout, maxConnections, url } = typeof options === "string" ? { url: options } as Options : options
  const target = targetOf(url)
  return Effect.gen(function*() {
    const sql = yield* PgClient.make({
      url: Redacted.make(url),
      transformJson: false,
      maxConnections: maxConnections ?? 10,
      connectTimeout: connectTimeout ?? Duration.seconds(5),
      applicationName: "dealstream"
    }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError((error) => new DatabaseError({ message: `cannot connect to PostgreSQL at ${target}: ${reasonOf(error)}` }))
    )
    yield* migrate(sql).pipe(
      Effect.mapError((error) => new DatabaseError({ message: `cannot migrate PostgreSQL at ${target}: ${reasonOf(error)}` }))
    )
    return fromClient(sql)
  })
}

export const layer = (options: Options | string): Layer.Layer<Storage, DatabaseError> => Layer.scoped(Storage, make(options))
