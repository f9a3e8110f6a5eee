import { type StoragePosition, ReadRoute, type ReplicaReadiness } from "@dealstream/core"
import * as PgPool from "@effect/sql-pg/PgPool"
import { Duration, Effect, Redacted, type Scope } from "effect"
import type * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { isUnavailable, reasonOf } from "./errors.js"
import { databaseHosts, hostText } from "./hosts.js"
import { sqlStateOf } from "./internal/sqlState.js"
import { clientOver, type Lender, lenderOf, type Lent } from "./pool.js"
import { lsnPosition } from "./commitBatches.js"

/**
 * Reads from streaming replicas that still see what they must (issue 30; API.md, "Read positions
 * and replicas").
 *
 * A read is sent to a replica only when the fiber carries a ReadRoute (core's positions.ts: the
 * host gives one to gets, lists, searches and history), and only to a replica that is fit (it
 * answers, and lags the primary by no more than `maxLag`) and has replayed the route's position.
 * Every other statement, and every read without a fit replica, goes to the primary. The choice is
 * made at a request's first read and kept for the rest of it, so one request reads one server,
 * whose history only moves forward.
 *
 * What each replica has replayed is asked every `poll` (one statement per replica). When the
 * position a read needs is past what the fittest replica was last seen at, that replica is asked
 * once more, then and there (the brief wait API.md promises: one round trip to the replica, none
 * to the primary); if it still has not replayed it, the primary serves.
 *
 * Lag is measured against the primary's own history, not the replica's clock: the storage keeps
 * when the primary was at which position (each group commit's answer says so, and the poll asks
 * the primary when no commit did for a while), and a replica's lag is how long ago the primary was
 * first past what the replica has replayed (0 when it has replayed the primary's latest known
 * position). So a replica that stopped replaying, or follows a primary that is gone, shows its lag
 * growing from the first write it missed, and a replica of an idle primary lags by nothing.
 *
 * A statement a replica fails for want of the server (connection lost, no answer, a conflict with
 * recovery that cancelled it) sets the replica aside until its next poll answers, and the read runs
 * again on the primary.
 */
export interface Reads {
  /** Statements go where the fiber's ReadRoute lets them (the primary without one). */
  readonly client: SqlClient
  /** A read through `client`, run again on the primary when a replica fails it. */
  readonly routed: <A, E>(read: Effect.Effect<A, E | SqlError>) => Effect.Effect<A, E | SqlError>
  /** Each replica as last seen. */
  readonly readiness: Effect.Effect<ReadonlyArray<ReplicaReadiness>>
  /** Notes that the primary was at `position` now (a commit's answer). */
  readonly primaryAt: (position: StoragePosition) => void
}

export interface ReplicaOptions {
  /** One URL per replica, each naming one server. */
  readonly urls: ReadonlyArray<string>
  /** The pools' settings, but for the URL (one pool per replica). */
  readonly pool: Omit<PgPool.Config, "url">
  readonly statementTimeout: Duration.Input
  /** A replica lagging more than this is skipped. */
  readonly maxLag: Duration.Input
  /** How often each replica is asked what it has replayed. */
  readonly poll: Duration.Input
}

interface Replica {
  readonly server: string
  readonly lender: Lender
  readonly client: SqlClient
  replayed: StoragePosition | null
  /** Why it is set aside (unreachable, failing); null when it answers. */
  down: string | null
  served: number
}

interface Sample {
  readonly at: number
  readonly position: StoragePosition
}

const PRIMARY = "primary"

/** What a server has replayed: a standby's replay position, or a server no longer in recovery's own. */
const REPLAYED = `SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text AS replayed`
const PRIMARY_AT = "SELECT pg_current_wal_insert_lsn()::text AS position"

/** A failure that says the replica cannot serve now, rather than that the statement was wrong. */
const replicaFailure = (error: unknown): boolean =>
  // 40001 on a standby: a statement cancelled for a conflict with recovery (a row it read was vacuumed away).
  isSqlError(error) && (isUnavailable(error) || sqlStateOf(error).code === "40001")

export const makeReads = (
  primary: Lender,
  primaryClient: SqlClient,
  options: ReplicaOptions
): Effect.Effect<Reads, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const statementTimeout = Duration.fromInputUnsafe(options.statementTimeout)
    const maxLag = Duration.toMillis(Duration.fromInputUnsafe(options.maxLag))
    const poll = Duration.fromInputUnsafe(options.poll)
    const pollMillis = Duration.toMillis(poll)
    const replicas: Array<Replica> = []
    for (const url of options.urls) {
      const lender = lenderOf(yield* PgPool.make({ ...options.pool, url: Redacted.make(url) }))
      const [host] = databaseHosts(url).hosts
      replicas.push({
        server: host === undefined ? url : hostText(host),
        lender,
        client: yield* clientOver(lender, statementTimeout),
        replayed: null,
        down: "not asked yet",
        served: 0
      })
    }

    // When the primary was at which position: oldest first, positions never falling, one sample per
    // half poll at most, none older than is needed to tell a lag past the bound.
    const samples: Array<Sample> = []
    const primaryAt = (position: StoragePosition) => {
      const now = Date.now()
      const last = samples[samples.length - 1]
      if (last !== undefined && (position <= last.position || now - last.at < pollMillis / 2)) return
      samples.push({ at: now, position })
      while (samples.length > 2 && now - samples[1]!.at > maxLag + 2 * pollMillis) samples.shift()
    }
    const lagOf = (replayed: StoragePosition, now: number): number => {
      const first = samples.find((sample) => sample.position > replayed)
      return first === undefined ? 0 : now - first.at
    }
    const fit = (replica: Replica, now: number) =>
      replica.down === null && replica.replayed !== null && lagOf(replica.replayed, now) <= maxLag

    const ask = (replica: Replica) =>
      replica.client.unsafe<{ readonly replayed: string | null }>(REPLAYED).pipe(
        Effect.flatMap(([row]) =>
          Effect.sync(() => {
            replica.replayed = row?.replayed == null ? null : lsnPosition(row.replayed)
            replica.down = replica.replayed === null ? "has replayed nothing yet" : null
          })
        ),
        Effect.catch((error) =>
          Effect.sync(() => {
            replica.down = reasonOf(error)
          })
        )
      )

    const askPrimary = primaryClient.unsafe<{ readonly position: string }>(PRIMARY_AT).pipe(
      Effect.flatMap(([row]) => Effect.sync(() => (row === undefined ? undefined : primaryAt(lsnPosition(row.position))))),
      Effect.ignore
    )

    const pollOnce = Effect.gen(function* () {
      const last = samples[samples.length - 1]
      if (last === undefined || Date.now() - last.at >= pollMillis) yield* askPrimary
      yield* Effect.forEach(replicas, ask, { concurrency: "unbounded", discard: true })
    })
    yield* pollOnce
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(poll), pollOnce)))

    let turn = 0
    /** The server for a route's reads, chosen at its first read and kept. */
    const chosen = (route: ReadRoute): Effect.Effect<Replica | typeof PRIMARY> => {
      if (route.server !== null && route.server !== undefined) return Effect.succeed(route.server as Replica | typeof PRIMARY)
      const keep = (server: Replica | typeof PRIMARY) => {
        route.server = server
        return server
      }
      const now = Date.now()
      const candidates = replicas.filter((replica) => fit(replica, now))
      const ready = candidates.filter((replica) => route.after === null || replica.replayed! >= route.after)
      if (ready.length > 0) return Effect.succeed(keep(ready[turn++ % ready.length]!))
      const fittest = candidates.reduce<Replica | undefined>(
        (best, r) => (best === undefined || r.replayed! > best.replayed! ? r : best),
        undefined
      )
      if (fittest === undefined) return Effect.succeed(keep(PRIMARY))
      return Effect.map(ask(fittest), () =>
        keep(fittest.down === null && fittest.replayed !== null && fittest.replayed >= route.after! ? fittest : PRIMARY)
      )
    }

    const lent =
      (replica: Replica) =>
      (lent: Lent): Lent => {
        replica.served++
        return {
          connection: lent.connection,
          failed: (error) =>
            Effect.sync(() => {
              if (replicaFailure(error)) replica.down = reasonOf(error)
            })
        }
      }

    const routing: Lender = {
      get: Effect.flatMap(ReadRoute, (route) =>
        route === null
          ? primary.get
          : Effect.flatMap(chosen(route), (server) => (server === PRIMARY ? primary.get : Effect.map(server.lender.get, lent(server))))
      ),
      reserve: primary.reserve,
      use: (f) =>
        Effect.flatMap(ReadRoute, (route) =>
          route === null
            ? primary.use(f)
            : Effect.flatMap(chosen(route), (server) =>
                server === PRIMARY ? primary.use(f) : server.lender.use((connection) => f(lent(server)(connection)))
              )
        )
    }

    const routed = <A, E>(read: Effect.Effect<A, E | SqlError>): Effect.Effect<A, E | SqlError> =>
      Effect.flatMap(ReadRoute, (route) =>
        route === null
          ? read
          : Effect.catchIf(
              read,
              (error) => route.server !== PRIMARY && replicaFailure(error),
              () => {
                route.server = PRIMARY
                return read
              }
            )
      )

    return {
      // Inside the primary's transactions (a snapshot), every read is the transaction's.
      client: yield* clientOver(routing, statementTimeout, primaryClient),
      routed,
      primaryAt,
      readiness: Effect.sync(() => {
        const now = Date.now()
        return replicas.map((replica): ReplicaReadiness => {
          const lag = replica.down === null && replica.replayed !== null ? lagOf(replica.replayed, now) : null
          return {
            server: replica.server,
            fit: fit(replica, now),
            lagMillis: lag,
            replayed: replica.down === null ? replica.replayed : null,
            served: replica.served,
            reason: replica.down ?? (lag !== null && lag > maxLag ? `lags ${lag} ms, more than ${maxLag} ms` : null)
          }
        })
      })
    }
  })
