import * as PgClient from "@effect/sql-pg/PgClient"
import type * as PgConnection from "@effect/sql-pg/PgConnection"
import * as PgPool from "@effect/sql-pg/PgPool"
import { Duration, Effect, type Scope, Stream } from "effect"
import type * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { ConnectionError, SqlError, UnknownError } from "effect/sql/SqlError"
import { notHere } from "./citusDelegation.js"
import { NoAnswer } from "./errors.js"

/**
 * The pool's connections, and a SqlClient over them that waits for no answer longer than a
 * deadline (`bounded`), or as long as it takes (`unbounded`, for the migrations).
 *
 * PgClient.make (@effect/sql-pg 4.0.5) takes a TCP keepalive but has no statement timeout, and
 * builds its SqlClient over its pool inside: so the same pool (PgPool.make, which PgClient.make
 * uses) and SqlClient.make are put together here, with the deadline on every statement. A
 * statement past its deadline is interrupted; the driver then asks the server to cancel it and
 * waits up to 5 seconds for the connection to settle, closing it when it does not (a connection
 * that went silent), and the pool retires a connection unless the server confirmed the cancel, so
 * a timed-out connection is never lent again in an unknown state. The statement fails with a
 * ConnectionError, which storage reports as StorageUnavailable.
 */
export interface Pool {
  readonly bounded: SqlClient.SqlClient
  readonly unbounded: SqlClient.SqlClient
  /** Where both get their connections (replicas.ts routes reads between it and the replicas'). */
  readonly lender: Lender
}

export interface PoolOptions extends PgPool.Config {
  /** How long a statement may go without an answer. */
  readonly statementTimeout: Duration.Input
}

/** COMMIT of a transaction that failed along the way answers ROLLBACK: that is a failed commit. */
const commit = (connection: Connection): Effect.Effect<void, SqlError> =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    (result as PgConnection.Result).command === "ROLLBACK"
      ? Effect.fail(
          new SqlError({
            reason: new UnknownError({
              cause: new Error("COMMIT rolled back an aborted transaction"),
              message: "COMMIT rolled back an aborted transaction",
              operation: "commit"
            })
          })
        )
      : Effect.void
  )

/**
 * A connection lent for one statement or a transaction, and what to do when a statement on it
 * fails (primary.ts retires the pool of a server that is no longer the primary).
 */
export interface Lent {
  readonly connection: PgConnection.PgConnection
  readonly failed: (error: SqlError) => Effect.Effect<void>
}

/** Where a SqlClient gets its connections: one pool, or the pool of whichever server is primary now. */
export interface Lender {
  /** A connection until the scope closes. */
  readonly get: Effect.Effect<Lent, SqlError, Scope.Scope>
  /** A connection of the caller's alone until the scope closes (transactions). */
  readonly reserve: Effect.Effect<Lent, SqlError, Scope.Scope>
  /** A connection for the length of one effect. */
  readonly use: <A, E, R>(f: (lent: Lent) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
}

/**
 * One pool's connections. A connection whose backend refused a delegated call as off its worker
 * is retired: Citus would never delegate on it again (functions/ds_workspace_here.ts).
 */
export const lenderOf = (pool: PgPool.PgPool): Lender => {
  const lent = (connection: PgConnection.PgConnection): Lent => ({
    connection,
    failed: (error) => (notHere(error) ? pool.invalidate(connection) : Effect.void)
  })
  return {
    get: Effect.map(pool.get, lent),
    reserve: Effect.map(pool.reserve, lent),
    use: (f) => pool.use((connection) => f(lent(connection)))
  }
}

/** A SqlClient over a lender's connections, each statement bounded by `statementTimeout` (null: unbounded). */
export const clientOver = (
  lender: Lender,
  statementTimeout: Duration.Duration | null,
  /** Another client's transactions, to be this one's too (replicas.ts: a snapshot's reads stay in it). */
  transactionsOf?: SqlClient.SqlClient
): Effect.Effect<SqlClient.SqlClient, never, Reactivity.Reactivity> => {
  const bound =
    statementTimeout === null
      ? <A>(statement: Effect.Effect<A, SqlError>) => statement
      : <A>(statement: Effect.Effect<A, SqlError>) =>
          Effect.timeoutOrElse(statement, {
            duration: statementTimeout,
            orElse: () => Effect.fail(noAnswer(statementTimeout))
          })
  const transformed = <A extends object>(
    rows: Effect.Effect<ReadonlyArray<A>, SqlError>,
    transform: (<B extends object>(rows: ReadonlyArray<B>) => ReadonlyArray<B>) | undefined
  ) => (transform === undefined ? rows : Effect.map(rows, transform))
  const connectionOf = ({ connection, failed }: Lent): Connection => {
    const run = <A>(statement: Effect.Effect<A, SqlError>) => Effect.tapError(bound(statement), failed)
    const rows = (sql: string, params: ReadonlyArray<unknown>, prepare?: boolean) =>
      run(Effect.map(connection.query(sql, params, prepare), (result) => result.rows))
    return {
      execute: (sql, params, transform) => transformed(rows(sql, params), transform),
      executeUnprepared: (sql, params, transform) => transformed(rows(sql, params, false), transform),
      executeRaw: (sql, params) => run(connection.query(sql, params)),
      executeValues: (sql, params) => run(connection.queryValues(sql, params)),
      executeValuesUnprepared: (sql, params) => run(connection.queryValues(sql, params, false)),
      // Each batch of rows within the deadline (nothing here streams; for completeness).
      executeStream: (sql, params, transform) => {
        const stream = connection.stream(sql, params)
        const timed =
          statementTimeout === null
            ? stream
            : Stream.timeoutOrElse(stream, {
                duration: statementTimeout,
                orElse: () => Stream.fail(noAnswer(statementTimeout))
              })
        const watched = Stream.tapError(timed, failed)
        return transform === undefined ? watched : Stream.mapArray(watched, (batch) => transform(batch) as typeof batch)
      }
    }
  }
  return SqlClient.make({
    acquirer: Effect.map(lender.get, connectionOf),
    borrower: (f) => lender.use((lent) => f(connectionOf(lent))),
    transactionAcquirer: Effect.map(lender.reserve, connectionOf),
    // As PgClient compiles: no name transforms, JSON values as given.
    compiler: PgClient.makeCompiler(undefined, false),
    driver: "pg",
    spanAttributes: [["db.system.name", "postgresql"]],
    prepareTransactionControls: true,
    commit,
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
    ...(transactionsOf === undefined ? {} : { transactionService: transactionsOf.transactionService })
  })
}

/** The failure of a statement that got no answer within `after`. */
export const noAnswer = (after: Duration.Duration) => {
  const message = `no answer within ${Duration.format(after)}`
  return new SqlError({ reason: new ConnectionError({ cause: new NoAnswer(message), message, operation: "query" }) })
}

export const makePool = (options: PoolOptions): Effect.Effect<Pool, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const lender = lenderOf(yield* PgPool.make(options))
    return {
      bounded: yield* clientOver(lender, Duration.fromInputUnsafe(options.statementTimeout)),
      unbounded: yield* clientOver(lender, null),
      lender
    }
  })
