import type { DeliveryQueue, Storage } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { databaseTarget, type DatabaseError, EmbeddedPostgres, EmbeddedPostgresError, PgStorage } from "@dealstream/storage-pg"
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { Context, Duration, Effect, Exit, Fiber, Layer, Schedule, Scope } from "effect"

/**
 * Where a host keeps its records: in process memory (gone on exit), in a PostgreSQL server of its
 * own under a data directory, or in a PostgreSQL database at a URL (several hosts may share it). The
 * URL may name several servers (`h1:5432,h2:5433`, from DATABASE_URL or DEALSTREAM_DATABASE_HOSTS):
 * the host then writes to whichever is the primary and follows it through a failover (PgStorage).
 * On PostgreSQL, `databaseTimeoutMillis` is how long a statement may wait for its answer before
 * the request gets 503 (PgStorage's `statementTimeout`, 30 s when not given).
 */
export type StorageChoice = "memory" | { readonly embedded: string; readonly databaseTimeoutMillis?: number } | PostgresChoice

/**
 * A database at a URL, and its read replicas if any (`readUrls`, one server each; a replica lagging
 * more than `readMaxLagMillis`, 5 s when not given, is skipped): PgStorage's `readUrls`.
 */
export interface PostgresChoice {
  readonly postgres: string
  readonly databaseTimeoutMillis?: number
  readonly readUrls?: ReadonlyArray<string>
  readonly readMaxLagMillis?: number
  /** How long opening a connection may take (PgStorage's `connectTimeout`, 5 s when not given). */
  readonly connectTimeoutMillis?: number
  /** On Citus: where the host reaches a worker, by its `host:port` in pg_dist_node (PgStorage's `citusWorkerUrls`). */
  readonly citusWorkerUrls?: Readonly<Record<string, string>>
}

/** PgStorage's options for a database at `url`, with the chosen timeout and replicas if any. */
const pgOptions = (url: string, choice: Omit<PostgresChoice, "postgres">): PgStorage.Options => ({
  url,
  ...(choice.databaseTimeoutMillis === undefined ? {} : { statementTimeout: Duration.millis(choice.databaseTimeoutMillis) }),
  ...(choice.readUrls === undefined ? {} : { readUrls: choice.readUrls }),
  ...(choice.readMaxLagMillis === undefined ? {} : { readMaxLag: Duration.millis(choice.readMaxLagMillis) }),
  ...(choice.connectTimeoutMillis === undefined ? {} : { connectTimeout: Duration.millis(choice.connectTimeoutMillis) }),
  ...(choice.citusWorkerUrls === undefined ? {} : { citusWorkerUrls: choice.citusWorkerUrls })
})

/** The storage a host actually runs on, worded for its start banner (never with a password). */
export class StorageInUse extends Context.Service<
  StorageInUse,
  {
    readonly description: string
  }
>()("@dealstream/http/StorageInUse") {}

/** The storage could not be set up; the message is one line for an operator. */
export type StorageSetupError = DatabaseError | EmbeddedPostgresError

/** The embedded cluster's folder inside a data directory (next to the dev API key). */
export const embeddedClusterDir = (dataDir: string) => join(dataDir, "pg")

/**
 * PostgreSQL refuses to run as root, so as root the embedded server runs as the `postgres` system
 * user, which has to pass through the data directory to reach its cluster. The directory is ours
 * (it holds the dev key, which stays 0600): let others traverse it, never list or read it.
 */
const prepareDataDir = (dataDir: string) =>
  Effect.try({
    try: () => {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      if (process.getuid?.() === 0) {
        const mode = statSync(dataDir).mode & 0o777
        if ((mode & 0o011) !== 0o011) chmodSync(dataDir, mode | 0o011)
      }
    },
    catch: (error) => new EmbeddedPostgresError({ message: `cannot prepare data directory ${dataDir}: ${(error as Error).message}` })
  })

const memory = Layer.merge(MemoryStorage.layer, Layer.succeed(StorageInUse, { description: "memory (nothing survives a restart)" }))

const postgres = (choice: PostgresChoice) =>
  Layer.merge(
    PgStorage.layer(pgOptions(choice.postgres, choice)),
    Layer.succeed(StorageInUse, {
      description: `postgres at ${databaseTarget(choice.postgres)}${
        choice.readUrls === undefined ? "" : `, reads also from ${choice.readUrls.map(databaseTarget).join(", ")}`
      }`
    })
  )

/**
 * The embedded server starts (initialising its cluster on first use) before storage connects and
 * stops after storage has closed its pool, which is after the host has drained its requests.
 */
const embedded = (choice: { readonly embedded: string; readonly databaseTimeoutMillis?: number }) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const dataDir = choice.embedded
      yield* prepareDataDir(dataDir)
      const cluster = embeddedClusterDir(dataDir)
      const server = yield* Scope.make()
      yield* Effect.addFinalizer(() => stopServer(server, cluster))
      const running = yield* Scope.provide(EmbeddedPostgres.start({ dataDir: cluster }), server)
      return Layer.merge(
        PgStorage.layer(pgOptions(running.url, choice)),
        Layer.succeed(StorageInUse, { description: `embedded PostgreSQL ${databaseTarget(running.url)}, data in ${cluster}` })
      )
    })
  )

/**
 * Stopping the server waits for its process to exit, which never comes when it has exited
 * already: Ctrl-C in a terminal signals the whole process group, so PostgreSQL shuts itself down
 * while the host is still draining. A clean stop removes postmaster.pid; once it is gone there is
 * nothing left to wait for.
 */
const stopServer = (server: Scope.Closeable, cluster: string) =>
  Effect.gen(function* () {
    const pidFile = join(cluster, "postmaster.pid")
    const gone = Effect.repeat(
      Effect.sync(() => !existsSync(pidFile)),
      {
        until: (stopped) => stopped,
        schedule: Schedule.spaced("100 millis")
      }
    )
    // Finalizers run uninterruptibly, and so does closing the server's scope: it runs on a fiber of
    // its own, which the race stops waiting for (leaving it to finish in the background) rather
    // than interrupting it. The wait for the pid file must be droppable too: when the server never
    // started here (another server holds the cluster), the file is that server's and stays, and
    // the close is done at once.
    const closing = yield* Effect.forkDetach(Scope.close(server, Exit.void))
    yield* Effect.raceFirst(Effect.interruptible(Fiber.join(closing)), Effect.interruptible(gone))
  })

export const storageLayer = (choice: StorageChoice): Layer.Layer<Storage | DeliveryQueue | StorageInUse, StorageSetupError> =>
  choice === "memory" ? memory : "embedded" in choice ? embedded(choice) : postgres(choice)
