import {
  ConsumerCheckpoints,
  type ConsumerCheckpointsService,
  DeliveryQueue,
  type DeliveryQueueService,
  RecordTypes,
  recordTypeSet,
  Storage,
  type StorageService,
  type StorageUnavailable
} from "@dealstream/core"
import { Clock, Context, Duration, Effect, Layer, Option, Redacted, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { claimDeliveries } from "./claimDeliveries.js"
import { commit } from "./commit.js"
import { makeConsumerCheckpoints } from "./consumerCheckpoints.js"
import { duplicates } from "./duplicates.js"
import { isCitus } from "./citus.js"
import { type CitusCommits, citusCommits } from "./citusCommits.js"
import { readFeedOnCitus } from "./citusFeed.js"
import { makeSignals } from "./citusSignals.js"
import { makeWorkerRoutes, workerAddress } from "./citusWorkers.js"
import { claimDeliveriesOnCitus, releaseLeasesOnCitus } from "./citusQueue.js"
import { lsnPosition, makeCommitBatches, type SubmitCommit } from "./commitBatches.js"
import { makeReads, type Reads } from "./replicas.js"
import { type FeedLockConnection, fromPool, snapshot } from "./snapshot.js"
import { workerConnection } from "./citusSnapshot.js"
import { type DocumentTableMap, documentTableMap } from "./documentTableMap.js"
import { DatabaseError, orUnavailable, reasonOf, targetOf } from "./errors.js"
import { getDocument } from "./getDocument.js"
import { queryRecords, readRecord } from "./readRecord.js"
import { batchedRecords } from "./recordBatches.js"
import { onServer, type Reader } from "./reader.js"
import { onWorker } from "./readOnWorker.js"
import { getDocuments } from "./getDocuments.js"
import { listDeletedBefore } from "./listDeletedBefore.js"
import type { ListenOptions } from "./listenChannel.js"
import { migrate, schemaOf } from "./migrate.js"
import { nextDue } from "./nextDue.js"
import { makePool } from "./pool.js"
import { databaseHosts } from "./hosts.js"
import { makePrimaryPool } from "./primary.js"
import { queueSignals } from "./queueSignals.js"
import { queryDocuments } from "./queryDocuments.js"
import { documentsWith } from "./documentsWith.js"
import { readFeed } from "./readFeed.js"
import { readLog } from "./readLog.js"
import { readWorkspaceLog } from "./readWorkspaceLog.js"
import { readStream } from "./readStream.js"
import { releaseLeases } from "./releaseLeases.js"
import { replaceDocuments } from "./replaceDocuments.js"
import { listenSettingsChanges } from "./settingsChanges.js"
import { listenFeedChanges } from "./feedChanges.js"
import { readEvent } from "./readEvent.js"
import { documentByUniqueKey } from "./documentByUniqueKey.js"
import { settingsVersion } from "./settingsVersion.js"
import { eventCount, workspaceHead } from "./headSequence.js"

export interface Options {
  /**
   * `postgres://user:password@host:port/database`, or with several servers as libpq writes them,
   * `postgres://user:password@h1:5432,h2:5433/database?target_session_attrs=read-write`: then the
   * storage writes to whichever of them is the primary now, and follows it when it changes
   * (primary.ts). `target_session_attrs`, when given with several hosts, must ask for the primary
   * (`read-write`, `primary` or `any`).
   */
  readonly url: string
  /** Pool size of this host. Default 10. */
  readonly maxConnections?: number
  /**
   * Group commit: commit batches in flight at once (each holds a connection while it runs).
   * Commits arriving while they are busy go together in the next batch. Default 2.
   */
  readonly commitLanes?: number
  /** How long to wait for the first connection. Default 5 seconds. */
  readonly connectTimeout?: Duration.Input
  /**
   * How long a statement may go without an answer before it fails with StorageUnavailable (and
   * its connection is closed, unless the server confirms it cancelled the statement): so a
   * network that drops packets without a word, or a frozen server, costs a request this and up
   * to 5 seconds more (the driver's wait for the interrupted statement), not the minutes the
   * operating system takes to give up on the connection. Default 30 seconds: far above what any
   * statement here takes when the database answers (a commit, a page, a rebuild's batch of 500
   * documents: milliseconds to a second), and below the minute after which proxies and clients
   * commonly give up on a request themselves. Not the server's statement_timeout: this one also
   * ends the wait for a server that cannot be reached. The migrations at start are not bounded
   * (an index build on a large table may take longer).
   */
  readonly statementTimeout?: Duration.Input
  /**
   * How often a `signals` or `settingsChanges` subscriber checks that its LISTEN connection still
   * hears the channel; a dead one is noticed within about twice this, one gone silent up to 5
   * seconds later (the driver's wait for its unanswered heartbeat to drain). Default 5 seconds.
   */
  readonly listenHeartbeat?: Duration.Input
  /**
   * With several hosts: the pause after a search for the primary that found none, from `min`
   * (default 50 ms), doubling, up to `max` (default 1 second). Statements fail as
   * StorageUnavailable while there is no primary.
   */
  readonly primarySearch?: { readonly min?: Duration.Input; readonly max?: Duration.Input }
  /**
   * Read replicas: one URL per streaming replica of the primary (each naming one server). Reads of
   * a fiber carrying core's ReadRoute go to one that has replayed the route's position and lags no
   * more than `readMaxLag`, or to the primary (replicas.ts). Default none.
   */
  readonly readUrls?: ReadonlyArray<string>
  /** A replica lagging the primary more than this is skipped. Default 5 seconds. */
  readonly readMaxLag?: Duration.Input
  /** How often each replica is asked what it has replayed. Default 100 milliseconds. */
  readonly readPoll?: Duration.Input
  /**
   * On Citus the host sends a workspace's commits, its feed reads and a snapshot's feed lock to
   * the worker holding it, at the address the coordinator knows the worker by (`host:port` in
   * pg_dist_node) with this URL's user, password and database. Where a host reaches a worker
   * otherwise (a proxy, another network's name for it), its URL by that `host:port`. Default none.
   */
  readonly citusWorkerUrls?: Readonly<Record<string, string>>
}

/**
 * The storage port over a connected, migrated database, serving the collections of `tableMap`.
 * `settingsChanges` opens a connection of its own per subscription (see listenChannel.ts), from
 * `listen`.
 */
export const fromClient = (
  sql: SqlClient,
  submit: SubmitCommit,
  listen: ListenOptions,
  tableMap: DocumentTableMap,
  reads: Reads = primaryReads(sql),
  feedLock?: FeedLockConnection,
  citus?: CitusCommits
): StorageService => {
  // What a read request may be served by a replica: the reads of records, lists, searches, history.
  const read = reads.client
  const routed = <A>(effect: Effect.Effect<A, SqlError>) => orUnavailable(reads.routed(effect))
  const fromReplicas = onServer(read)
  const fromPrimary = onServer(sql)
  const fromWorkers = citus === undefined ? undefined : onWorker(citus.routes)
  // Record reads batched where every read goes to one server (no replica routing, no Citus worker).
  const batched = citus === undefined && reads.client === sql ? batchedRecords(sql, tableMap) : undefined
  /**
   * A read written over a Reader: on one server through `server` (replicas or not, as `plain`
   * sends it); on Citus on the workspace's worker, unless it runs inside a transaction of this
   * storage (a snapshot's, snapshot.ts), which holds the state it must read, through the coordinator.
   */
  const readWith = <A>(
    reading: (reader: Reader) => Effect.Effect<A, SqlError>,
    server: Reader = fromReplicas,
    plain: (read: Effect.Effect<A, SqlError>) => Effect.Effect<A, StorageUnavailable> = routed
  ) =>
    fromWorkers === undefined
      ? plain(reading(server))
      : orUnavailable(
          Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) =>
            reading(Option.isSome(transaction) ? server : fromWorkers)
          )
        )
  return {
    // recordedAt comes from Effect's Clock, as in the memory adapter, so tests on TestClock see the
    // same times on either storage.
    commit: (input) =>
      Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) => commit(sql, submit, tableMap)(input, new Date(now).toISOString())),
        orUnavailable
      ),
    readStream: (streamId, after, workspaceId) => routed(readStream(read)(streamId, after, workspaceId)),
    settingsVersion: (workspaceId) => routed(settingsVersion(read)(workspaceId)),
    settingsChanges: listenSettingsChanges(listen),
    readLog: (options) => orUnavailable(readLog(sql)(options)),
    readWorkspaceLog: (options) => orUnavailable(readWorkspaceLog(sql)(options)),
    readFeed: (options) => orUnavailable(citus === undefined ? readFeed(sql)(options) : readFeedOnCitus(citus.routes)(options)),
    readEvent: (workspaceId, eventId) => routed(readEvent(read)(workspaceId, eventId)),
    feedChanges: listenFeedChanges(listen),
    getDocument: (collection, workspaceId, id) => routed(getDocument(read, tableMap)(collection, workspaceId, id)),
    documentByUniqueKey: (collection, workspaceId, uniqueKey) =>
      routed(documentByUniqueKey(read, tableMap)(collection, workspaceId, uniqueKey)),
    readRecord: (collection, workspaceId, id, linked) =>
      batched === undefined
        ? readWith((reader) => readRecord(reader, tableMap)(collection, workspaceId, id, linked))
        : orUnavailable(batched(collection, workspaceId, id, linked)),
    queryRecords: (collection, workspaceId, query, linked) =>
      readWith((reader) => queryRecords(reader, tableMap)(collection, workspaceId, query, linked)),
    getDocuments: (collection, workspaceId, ids) => routed(getDocuments(read, tableMap)(collection, workspaceId, ids)),
    queryDocuments: (collection, workspaceId, query) =>
      readWith((reader) => queryDocuments(reader, tableMap)(collection, workspaceId, query)),
    documentsWith: (collection, key, limit) => orUnavailable(documentsWith(sql, tableMap)(collection, key, limit)),
    listDeletedBefore: (collection, cutoff, limit) => orUnavailable(listDeletedBefore(sql, tableMap)(collection, cutoff, limit)),
    replaceDocuments: (collections, writes) => orUnavailable(replaceDocuments(sql, tableMap, citus !== undefined)(collections, writes)),
    eventCount: orUnavailable(eventCount(sql)),
    workspaceHead: (workspaceId) => orUnavailable(workspaceHead(sql)(workspaceId)),
    // Duplicate groups are read from the primary on one server, never a replica.
    duplicates: (collection, workspaceId, after, limit) =>
      readWith((reader) => duplicates(reader)(collection, workspaceId, after, limit), fromPrimary, orUnavailable),
    inlineTarget: citus === undefined ? "postgres" : null,
    snapshot: (workspaceId, read) =>
      feedLock === undefined
        ? Effect.die(new Error("snapshot needs the storage's own pool (PgStorage.make)"))
        : orUnavailable(snapshot(sql, feedLock)(workspaceId, read)),
    position:
      citus === undefined
        ? orUnavailable(
            Effect.map(sql.unsafe<{ readonly position: string }>("SELECT pg_current_wal_insert_lsn()::text AS position"), ([row]) =>
              lsnPosition(row!.position)
            )
          )
        : Effect.sync(citus.position),
    // The server as it names itself: the one the pool lent a connection to, the primary now.
    ping: orUnavailable(
      Effect.zipWith(
        sql.unsafe<{ readonly host: string | null; readonly port: number | null }>(
          "SELECT host(inet_server_addr()) AS host, inet_server_port() AS port"
        ),
        reads.readiness,
        ([row], replicas) => ({
          primary: row?.host == null || row.port == null ? null : `${row.host.includes(":") ? `[${row.host}]` : row.host}:${row.port}`,
          replicas
        })
      )
    )
  }
}

/** Reads without replicas: every statement to the primary. */
const primaryReads = (sql: SqlClient): Reads => ({
  client: sql,
  routed: (read) => read,
  readiness: Effect.succeed([]),
  primaryAt: () => {}
})

/**
 * The delivery queue over the same pool. `signals` opens a connection of its own per subscription
 * (see listenChannel.ts), from `listen`, and hears this queue's own signals at once
 * (queueSignals.ts). On Citus (`citus`) the claim and the release lock each workspace's rows by a
 * statement of their own on its worker (citusQueue.ts).
 */
export const queueFromClient = (sql: SqlClient, listen: ListenOptions, citus = false): DeliveryQueueService => {
  const { signal, signals } = queueSignals(sql, listen)
  return {
    claim: (options) => orUnavailable(citus ? claimDeliveriesOnCitus(sql)(options) : claimDeliveries(sql)(options)),
    release: (owner) => orUnavailable(citus ? releaseLeasesOnCitus(sql)(owner) : releaseLeases(sql)(owner)),
    nextDue: orUnavailable(nextDue(sql)),
    signal: (sent) => orUnavailable(signal(sent)),
    signals
  }
}

export interface Services {
  readonly storage: StorageService
  readonly queue: DeliveryQueueService
  readonly checkpoints: ConsumerCheckpointsService
}

/**
 * Connects a pool, brings the schema up to date and returns the storage and the delivery queue
 * over it; the pool closes with the scope. Keys inside jsonb stay exactly as written: no name
 * transforms, transformJson off. Rows come back in PostgreSQL's binary format: jsonb as
 * JSON.parse of its text (keys in jsonb's order, as node-postgres gave them), int8 as bigint,
 * timestamptz as Date; the row readers (internal/eventRow.ts, headSequence.ts) turn these into the
 * port's numbers and ISO strings.
 *
 * It serves the record type plug-ins of core's RecordTypes (none unless given) beside the built-in
 * collections: it applies their migrations, and its stored functions write their tables. Every
 * host sharing the database must be given the same plug-ins (functions/documentTableList.ts). A
 * plug-in it cannot serve (documentTableMap.ts) is a defect.
 */
export const makeWithQueue = (options: Options | string): Effect.Effect<Services, DatabaseError, Scope.Scope> => {
  const {
    citusWorkerUrls,
    commitLanes,
    connectTimeout,
    listenHeartbeat,
    maxConnections,
    primarySearch,
    readMaxLag,
    readPoll,
    readUrls,
    statementTimeout,
    url
  } = typeof options === "string" ? ({ url: options } as Options) : options
  const target = targetOf(url)
  const cannotConnect = (error: SqlError) => new DatabaseError({ message: `cannot connect to PostgreSQL at ${target}: ${reasonOf(error)}` })
  const poolOptions = {
    maxConnections: maxConnections ?? 10,
    connectTimeout: connectTimeout ?? Duration.seconds(5),
    // Probes on idle connections: a peer gone for good is found before a statement is sent to it.
    keepAlive: Duration.seconds(10),
    applicationName: "dealstream"
  }
  // Built on the real clock whatever clock the caller runs on: the pool reaps idle connections on a
  // timer (and the commit lanes and listeners keep time of their own), and built on a TestClock each
  // TestClock.setTime/adjust would run that timer once per period it skips (decades of 60 s periods
  // for a jump to 2026): an embedder's test would hang. Commits still read the caller's clock.
  return Effect.provideService(
    Clock.Clock,
    realClock
  )(
    Effect.gen(function* () {
      const plugins = yield* RecordTypes
      const tableMap = yield* Effect.sync(() => documentTableMap(plugins))
      const hosts = yield* Effect.try({
        try: () => databaseHosts(url),
        catch: (error) => new DatabaseError({ message: `cannot connect to PostgreSQL at ${target}: ${(error as Error).message}` })
      })
      const connection =
        hosts.hosts.length > 1
          ? // Several servers: the pool of the primary, found and followed (primary.ts).
            Effect.map(
              makePrimaryPool({
                hosts,
                pool: poolOptions,
                statementTimeout: statementTimeout ?? Duration.seconds(30),
                searchBackoff: { min: primarySearch?.min ?? Duration.millis(50), max: primarySearch?.max ?? Duration.seconds(1) }
              }),
              (primary) => ({ ...primary, listenUrl: primary.listenTarget as ListenOptions["url"] })
            )
          : Effect.map(
              makePool({ url: Redacted.make(url), ...poolOptions, statementTimeout: statementTimeout ?? Duration.seconds(30) }),
              (pool) => ({ ...pool, listenUrl: url as ListenOptions["url"] })
            )
      const {
        bounded: sql,
        lender,
        listenUrl,
        unbounded
      } = yield* connection.pipe(
        // Reactivity (invalidation of `sql.reactive` queries) is not used, but SqlClient requires it.
        Effect.provide(Reactivity.layer),
        Effect.mapError(cannotConnect)
      )
      // The pool opens connections when they are first needed: one now, so that an unreachable
      // database or a refused login is said as such, not as a failed migration.
      yield* sql.unsafe("SELECT 1").pipe(Effect.mapError(cannotConnect))
      yield* migrate(unbounded, schemaOf(tableMap)).pipe(
        Effect.mapError((error) => new DatabaseError({ message: `cannot migrate PostgreSQL at ${target}: ${reasonOf(error)}` }))
      )
      const reads =
        readUrls === undefined || readUrls.length === 0
          ? primaryReads(sql)
          : yield* makeReads(lender, sql, {
              urls: readUrls,
              pool: { ...poolOptions, applicationName: "dealstream reads" },
              statementTimeout: statementTimeout ?? Duration.seconds(30),
              maxLag: readMaxLag ?? Duration.seconds(5),
              poll: readPoll ?? Duration.millis(100)
            }).pipe(Effect.provide(Reactivity.layer), Effect.mapError(cannotConnect))
      // On Citus, how the commits, the feed reads and the snapshot's feed lock reach a worker.
      const reach = workerAddress(url, citusWorkerUrls)
      const citus = (yield* isCitus(sql).pipe(Effect.mapError(cannotConnect)))
        ? citusCommits(
            recordTypeSet(tableMap.plugins).feedPrefixes,
            yield* makeWorkerRoutes(sql, {
              reach,
              maxConnections: poolOptions.maxConnections,
              connectTimeout: poolOptions.connectTimeout,
              statementTimeout: statementTimeout ?? Duration.seconds(30)
            }).pipe(Effect.provide(Reactivity.layer)),
            yield* makeSignals(sql)
          )
        : undefined
      if (citus !== undefined && readUrls !== undefined && readUrls.length > 0) {
        return yield* new DatabaseError({ message: "read replicas are not offered on Citus: a cluster has no one position to follow" })
      }
      const batches = yield* makeCommitBatches(sql, {
        lanes: commitLanes ?? 2,
        maxBatch: 64,
        written: reads.primaryAt,
        ...(citus === undefined ? {} : { citus })
      })
      // On Citus the snapshot's feed lock is taken on the workspace's worker (citusSnapshot.ts).
      const feedLock = citus === undefined ? fromPool(lender) : workerConnection(sql, reach, connectTimeout ?? Duration.seconds(5))
      const listen: ListenOptions = {
        url: listenUrl,
        connectTimeout: connectTimeout ?? Duration.seconds(5),
        heartbeat: listenHeartbeat ?? Duration.seconds(5)
      }
      return {
        storage: fromClient(sql, batches.submit, listen, tableMap, reads, feedLock, citus),
        queue: queueFromClient(sql, listen, citus !== undefined),
        checkpoints: makeConsumerCheckpoints(sql, citus !== undefined)
      }
    })
  )
}

const realClock = Clock.Clock.defaultValue()

/** The storage alone (tools that never touch the delivery queue). */
export const make = (options: Options | string): Effect.Effect<StorageService, DatabaseError, Scope.Scope> =>
  Effect.map(makeWithQueue(options), (services) => services.storage)

/** Storage, DeliveryQueue and consumers' checkpoints over one pool. */
export const layer = (options: Options | string): Layer.Layer<Storage | DeliveryQueue | ConsumerCheckpoints, DatabaseError> =>
  Layer.effectContext(
    Effect.map(makeWithQueue(options), ({ checkpoints, queue, storage }) =>
      Context.make(Storage, storage).pipe(Context.add(DeliveryQueue, queue), Context.add(ConsumerCheckpoints, checkpoints))
    )
  )
