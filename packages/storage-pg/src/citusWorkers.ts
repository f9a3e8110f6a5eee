import { type Duration, Effect, Redacted, Scope, Semaphore } from "effect"
import type * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { delegated, notHere } from "./citusDelegation.js"
import { makePool } from "./pool.js"
import { tables } from "./tables.js"

/**
 * A workspace's delegated calls (`…_in`) sent straight to the worker holding it, not through the
 * coordinator. Through the coordinator each call pays a planning and a hop there (0.2–0.4 ms of the
 * coordinator's CPU, bench/ANALYSIS.md, "Where 1.3× is within reach"), and every commit of the
 * cluster passes one server, which bounds the write capacity however many workers there are. On the
 * worker holding the workspace the call runs where it is (Citus does not delegate a call to the
 * node it is on), as a delegated one would.
 *
 * Where each workspace is comes from the coordinator's placement of its log shard, kept per
 * workspace. A kept place goes stale when the shards move: the worker then refuses the call
 * (functions/ds_workspace_here.ts, checked under the shard lock a move takes), and the place is
 * asked again. A commit refused that way changed nothing, so sending it again is safe. The workers
 * are reached at the addresses the coordinator knows them by (pg_dist_node), with the coordinator
 * URL's user, password and database, as the snapshot's feed lock already is (citusSnapshot.ts).
 * One pool per worker for reads, made when the first call goes there and closed with the storage.
 *
 * Commits go through a pool per shard group instead (the workspace's log shard on its worker): a
 * commit's statements reach the group's shards through views the worker names the same for every
 * group and picks by search_path (functions/ds_shards_here.ts), and PostgreSQL keeps their plans
 * only while a connection keeps the same path. A connection that served group after group would
 * plan every statement again at every commit, at almost three times the cost of the EXECUTE the
 * views replace (bench/ANALYSIS.md, issue 31). A group's pool holds one connection, closed after a
 * minute unused, so a host keeps connections only for the groups it writes to: each call carries a
 * whole workspace's batch, and three per group measured no better in the bench (with as many plan
 * caches to warm).
 */
export interface WorkerRoutes {
  /**
   * Runs `call` on the worker holding the workspace (`direct`), or through the coordinator if none
   * is found; a delegated function's call is sent by selectCall (citusDelegation.ts).
   */
  readonly run: <A>(workspaceId: string, call: Call<A>) => Effect.Effect<A, SqlError>
  /** The same over a connection kept for the workspace's shard group: ds_commit_batch_in's calls. */
  readonly commit: <A>(workspaceId: string, call: Call<A>) => Effect.Effect<A, SqlError>
}

/** A routed call, told whether it is on the workspace's worker itself. */
export type Call<A> = (sql: SqlClient, direct: boolean) => Effect.Effect<A, SqlError>

/** A worker as the coordinator knows it (pg_dist_node). */
export interface Worker {
  readonly host: string
  readonly port: number
}

/** Where a workspace is: its worker, and its shard of the log, which names its shard group. */
interface Place extends Worker {
  readonly shard: string
}

const workerSql = `SELECT n.nodename AS host, n.nodeport AS port, p.shardid::text AS shard
FROM pg_dist_placement AS p JOIN pg_dist_node AS n ON n.groupid = p.groupid
WHERE p.shardid = get_shard_id_for_distribution_column('${tables.events}', $1::text) AND n.isactive AND n.noderole = 'primary'`

/** Where the coordinator places the workspace's log now; undefined when no active worker holds it. */
export const placedOn =
  (sql: SqlClient) =>
  (workspaceId: string): Effect.Effect<Place | undefined, SqlError> =>
    Effect.map(sql.unsafe<Place>(workerSql, [workspaceId]), ([place]) => place)

/** What a connection to a worker is made with: a URL, and the address that overrides its own. */
export type Reach = (worker: Worker) => { readonly url: Redacted.Redacted; readonly host?: string; readonly port?: number }

/**
 * How the host reaches a worker the coordinator knows as `host:port` (pg_dist_node): the URL given
 * for it, or that address with the coordinator URL's user, password, database and parameters.
 */
export const workerAddress =
  (url: string, workerUrls: Readonly<Record<string, string>> | undefined): Reach =>
  (worker) => {
    const given = workerUrls?.[`${worker.host}:${worker.port}`]
    return given === undefined ? { url: Redacted.make(url), host: worker.host, port: worker.port } : { url: Redacted.make(given) }
  }

/** Every call through the coordinator, which delegates it (what tests compare the routes with). */
export const throughCoordinator = (coordinator: SqlClient): WorkerRoutes => {
  const run: WorkerRoutes["run"] = (_, call) => delegated(call(coordinator, false))
  return { run, commit: run }
}

/** How many workspaces' places a host keeps; past it the oldest kept is asked again when next used. */
const KEPT_PLACES = 10_000

/** Refusals in a row before a call goes through the coordinator instead (a move under way). */
const TRIES = 4

export interface WorkerRoutesOptions {
  /** How a worker is reached (workerAddress), as the snapshot's feed lock reaches it. */
  readonly reach: Reach
  readonly maxConnections: number
  readonly connectTimeout: Duration.Input
  readonly statementTimeout: Duration.Input
}

export const makeWorkerRoutes = (
  coordinator: SqlClient,
  options: WorkerRoutesOptions
): Effect.Effect<WorkerRoutes, never, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const context = yield* Effect.context<Reactivity.Reactivity>()
    const places = new Map<string, Place>()
    const pools = new Map<string, SqlClient>()
    const making = Semaphore.makeUnsafe(1)
    const lookUp = placedOn(coordinator)

    const poolFor = (worker: Worker, group: string | undefined): Effect.Effect<SqlClient, SqlError> => {
      const key = `${worker.host}:${worker.port}${group === undefined ? "" : `/${group}`}`
      const made = pools.get(key)
      if (made !== undefined) return Effect.succeed(made)
      return making.withPermits(1)(
        Effect.suspend(() => {
          const again = pools.get(key)
          if (again !== undefined) return Effect.succeed(again)
          return makePool({
            ...options.reach(worker),
            maxConnections: group === undefined ? options.maxConnections : 1,
            connectTimeout: options.connectTimeout,
            keepAlive: "10 seconds",
            applicationName: "dealstream worker",
            statementTimeout: options.statementTimeout
          }).pipe(
            Scope.provide(scope),
            Effect.provideContext(context),
            Effect.map(({ bounded }) => {
              pools.set(key, bounded)
              return bounded
            })
          )
        })
      )
    }

    /** The kept place of the workspace, or the coordinator's answer, kept. */
    const placeOf = (workspaceId: string): Effect.Effect<Place | undefined, SqlError> => {
      const kept = places.get(workspaceId)
      if (kept !== undefined) return Effect.succeed(kept)
      return Effect.map(lookUp(workspaceId), (place) => {
        if (place === undefined) return undefined
        if (places.size >= KEPT_PLACES) places.delete(places.keys().next().value!)
        places.set(workspaceId, place)
        return place
      })
    }

    const routed =
      (byGroup: boolean) =>
      <A>(workspaceId: string, call: Call<A>): Effect.Effect<A, SqlError> => {
        const attempt = (left: number): Effect.Effect<A, SqlError> =>
          left === 0
            ? delegated(call(coordinator, false))
            : Effect.flatMap(placeOf(workspaceId), (place) =>
                place === undefined
                  ? delegated(call(coordinator, false))
                  : Effect.flatMap(poolFor(place, byGroup ? place.shard : undefined), (sql) =>
                      Effect.catchIf(call(sql, true), notHere, () => {
                        places.delete(workspaceId)
                        return attempt(left - 1)
                      })
                    )
              )
        return attempt(TRIES)
      }
    return { run: routed(false), commit: routed(true) }
  })
