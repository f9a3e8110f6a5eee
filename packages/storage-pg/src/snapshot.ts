import type { ChangeFeedPosition } from "@dealstream/core"
import type * as PgConnection from "@effect/sql-pg/PgConnection"
import { Effect, type Scope } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { FEED_LOCK_CLASS } from "./internal/feedLock.js"
import type { Lender } from "./pool.js"
import { tables } from "./tables.js"

/**
 * A connection of the snapshot's own to the server where `workspaceId`'s commits run, until the
 * scope closes: on one server a connection of the pool; on Citus one to the workspace's worker
 * (citusSnapshot.ts).
 */
export type FeedLockConnection = (workspaceId: string) => Effect.Effect<PgConnection.PgConnection, SqlError, Scope.Scope>

/** One server's: a connection reserved from the storage's pool. */
export const fromPool =
  (lender: Lender): FeedLockConnection =>
  () =>
    Effect.map(lender.reserve, (lent) => lent.connection)

/**
 * storage.snapshot on PostgreSQL: `read` runs in one REPEATABLE READ, READ ONLY transaction, so
 * every statement it sends through this storage sees the state of its first, and is given the feed
 * position of that state in the workspace.
 *
 * The position must split the workspace's events exactly: those in the state at or before it,
 * every later one after it. A transaction's events are ordered by its id (readFeed.ts), and a
 * snapshot can see a commit whose id is above that of one still running, which would then land
 * behind the position. So while the state is taken, no commit of the workspace runs: a connection
 * of its own holds the workspace's feed lock exclusively (every commit holds it shared from before
 * its first write, internal/feedLock.ts), which waits for the commits running and holds back new
 * ones for the two statements the state takes; a commit that starts after it takes its id after
 * it, above every id the state holds. The lock is taken where the workspace's commits take theirs
 * (`lockOn`), and the state's first statement reads there.
 */
export const snapshot =
  (sql: SqlClient, lockOn: FeedLockConnection) =>
  <A, E, R>(workspaceId: string, read: (through: ChangeFeedPosition | null) => Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.scoped(
      Effect.gen(function* () {
        const connection = yield* lockOn(workspaceId)
        const key = [FEED_LOCK_CLASS, workspaceId]
        yield* Effect.acquireRelease(connection.query("SELECT pg_advisory_lock($1, hashtext($2))", key), () =>
          Effect.ignore(connection.query("SELECT pg_advisory_unlock($1, hashtext($2))", key))
        )
        const unlock = Effect.ignore(connection.query("SELECT pg_advisory_unlock($1, hashtext($2))", key))
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql.unsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            const [last] = yield* sql.unsafe<{ readonly xact: string; readonly sequence: bigint }>(
              `SELECT xact_id::text AS xact, sequence FROM ${tables.events} WHERE workspace_id = $1 ORDER BY xact_id DESC, sequence DESC LIMIT 1`,
              [workspaceId]
            )
            // The state is taken: commits may go on (the release above then finds the lock gone).
            yield* unlock
            return yield* read(last === undefined ? null : { transaction: last.xact, sequence: Number(last.sequence) })
          })
        )
      })
    )
