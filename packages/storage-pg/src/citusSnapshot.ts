import * as PgConnection from "@effect/sql-pg/PgConnection"
import { type Duration, Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import { placedOn, type Reach, type Worker } from "./citusWorkers.js"
import type { FeedLockConnection } from "./snapshot.js"

/**
 * The snapshot's feed lock on Citus (snapshot.ts). Commits of a workspace run on the worker holding
 * it (ds_commit_batch_in, delegated), and take the workspace's feed lock shared there, with that
 * worker's transaction ids; a lock taken on the coordinator would hold none of them back. So the
 * snapshot holds the lock on a connection of its own to that worker (Citus serves clients on every
 * node since 11), found from the coordinator's placement of the workspace's log shard (placedOn),
 * and reached as the commits reach it (`reach`, citusWorkers.ts). The state is then read through the coordinator:
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
const noWorker = (workspaceId: string) =>
  new SqlError({
    reason: new UnknownError({
      cause: new Error(`no active worker holds the log of ${workspaceId}`),
      message: "no worker for the workspace's log",
      operation: "query"
    })
  })

export const workerConnection =
  (
    sql: SqlClient,
    reach: Reach,
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
