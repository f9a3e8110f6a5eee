import * as PgConnection from "@effect/sql-pg/PgConnection"
import { type Duration, Effect, type Redacted } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import type { FeedLockConnection } from "./snapshot.js"
import { tables } from "./tables.js"

/**
 * The snapshot's feed lock on Citus (snapshot.ts). Commits of a workspace run on the worker holding
 * it (ds_commit_batch_in, delegated), and take the workspace's feed lock shared there, with that
 * worker's transaction ids; a lock taken on the coordinator would hold none of them back. So the
 * snapshot holds the lock on a connection of its own to that worker (Citus serves clients on every
 * node since 11), found from the coordinator's placement of the workspace's log shard, and reached
 * as citusWorkers.ts reaches it (`reach`: workerAddress). The state is then read through the coordinator:
 * its first statement is a router query on that worker, where the REPEATABLE READ transaction's
 * snapshot is taken while the lock is held, and Citus keeps the transaction on that one connection
 * to the worker for its later reads of the workspace.
 *
 * A shard moved between the look-up and the snapshot's first read would leave the lock on the old
 * worker, where no commit of the workspace takes it any more: the snapshot asks again, inside its
 * transaction after that read, where the coordinator places the workspace's log (as of the
 * transaction's snapshot, the placement its first read was routed by), and is taken again when that
 * is no longer the locked worker (snapshot.ts).
 */
const workerSql = `SELECT n.nodename AS host, n.nodeport AS port
FROM pg_dist_placement AS p JOIN pg_dist_node AS n ON n.groupid = p.groupid
WHERE p.shardid = get_shard_id_for_distribution_column('${tables.events}', $1::text) AND n.isactive AND n.noderole = 'primary'`

const noWorker = (workspaceId: string) =>
  new SqlError({
    reason: new UnknownError({
      cause: new Error(`no active worker holds the log of ${workspaceId}`),
      message: "no worker for the workspace's log",
      operation: "query"
    })
  })

interface Worker {
  readonly host: string
  readonly port: number
}

/** Where the coordinator places the workspace's log now; undefined when no active worker holds it. */
export const placedOn =
  (sql: SqlClient) =>
  (workspaceId: string): Effect.Effect<Worker | undefined, SqlError> =>
    Effect.map(sql.unsafe<Worker>(workerSql, [workspaceId]), ([worker]) => worker)

export const workerConnection =
  (
    sql: SqlClient,
    reach: (worker: Worker) => { readonly url: Redacted.Redacted; readonly host?: string; readonly port?: number },
    connectTimeout: Duration.Input,
    lookUp: (workspaceId: string) => Effect.Effect<Worker | undefined, SqlError> = placedOn(sql)
  ): FeedLockConnection =>
  (workspaceId) =>
    Effect.gen(function* () {
      const worker = yield* lookUp(workspaceId)
      if (worker === undefined) return yield* Effect.fail(noWorker(workspaceId))
      const connection = yield* PgConnection.make({
        ...reach(worker),
        connectTimeout,
        applicationName: "dealstream-snapshot"
      })
      const stillThere = Effect.map(placedOn(sql)(workspaceId), (now) => now?.host === worker.host && now?.port === worker.port)
      return { connection, stillThere }
    })
