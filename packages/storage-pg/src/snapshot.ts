import type { ChangeFeedPosition } from "@dealstream/core"
import type * as PgConnection from "@effect/sql-pg/PgConnection"
import { Data, Effect, type Scope } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import { FEED_LOCK_CLASS } from "./internal/feedLock.js"
import type { Lender } from "./pool.js"
import { workspaceHead } from "./headSequence.js"

/** Where the snapshot takes the workspace's feed lock. */
export interface FeedLock {
  readonly connection: PgConnection.PgConnection
  /**
   * Whether the workspace's commits still run where `connection` is, asked inside the snapshot's
   * transaction after its first read: on Citus a shard move between finding the worker and reading
   * would leave the lock where no commit takes it any more.
   */
  readonly stillThere: Effect.Effect<boolean, SqlError>
}

/**
 * A connection of the snapshot's own to the server where `workspaceId`'s commits run, until the
 * scope closes: on one server a connection of the pool; on Citus one to the workspace's worker
 * (citusSnapshot.ts).
 */
export type FeedLockConnection = (workspaceId: string) => Effect.Effect<FeedLock, SqlError, Scope.Scope>

/** One server's: a connection reserved from the storage's pool. Its commits never run elsewhere. */
export const fromPool =
  (lender: Lender): FeedLockConnection =>
  () =>
    Effect.map(lender.reserve, (lent) => ({ connection: lent.connection, stillThere: Effect.succeed(true) }))

/** The workspace moved to another worker while the snapshot was being taken: it is taken again. */
class Moved extends Data.TaggedError("Moved")<{ readonly workspaceId: string }> {}

/** Moves are rare and take seconds; a workspace moving under three snapshots in a row is an error. */
const MOVED_RETRIES = 3

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
        const { connection, stillThere } = yield* lockOn(workspaceId)
        const key = [FEED_LOCK_CLASS, workspaceId]
        yield* Effect.acquireRelease(connection.query("SELECT pg_advisory_lock($1, hashtext($2))", key), () =>
          Effect.ignore(connection.query("SELECT pg_advisory_unlock($1, hashtext($2))", key))
        )
        const unlock = Effect.ignore(connection.query("SELECT pg_advisory_unlock($1, hashtext($2))", key))
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql.unsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            const through = yield* workspaceHead(sql)(workspaceId)
            // Before anything is read for the caller: a state taken where the lock is not is not kept.
            if (!(yield* stillThere)) return yield* new Moved({ workspaceId })
            // The state is taken: commits may go on (the release above then finds the lock gone).
            yield* unlock
            return yield* read(through)
          })
        )
      })
    ).pipe(
      Effect.retry({ while: (error) => error instanceof Moved, times: MOVED_RETRIES }),
      Effect.catchIf(
        (error): error is Moved => error instanceof Moved,
        (moved) =>
          Effect.fail(
            new SqlError({
              reason: new UnknownError({
                cause: moved,
                message: `${moved.workspaceId} moved between workers under ${MOVED_RETRIES + 1} snapshots in a row`,
                operation: "snapshot"
              })
            })
          )
      )
    )
