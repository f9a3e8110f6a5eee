import * as PgConnection from "@effect/sql-pg/PgConnection"
import * as PgPool from "@effect/sql-pg/PgPool"
import { Deferred, Duration, Effect, Exit, Queue, Redacted, Scope } from "effect"
import type * as Reactivity from "effect/reactivity/Reactivity"
import { ConnectionError, SqlError } from "effect/sql/SqlError"
import { primaryVerdict, reasonOf } from "./errors.js"
import { type DatabaseHosts, type HostAddress, hostText } from "./hosts.js"
import type { ListenTarget } from "./listenChannel.js"
import { clientOver, type Lender, type Lent, noAnswer, type Pool } from "./pool.js"

/**
 * Several database servers, of which one is the primary at a time (a failover manager, or an
 * operator with `pg_ctl promote`, decides which): one connection pool, to the server that is the
 * primary now.
 *
 * The primary is found by asking each host in the URL's order, on a connection of its own,
 * `SELECT pg_is_in_recovery()`: the first that answers false is it. A host in recovery (a standby,
 * or an old primary that came back as one) is never chosen. Its pool then serves every statement,
 * each new connection of it asked the same question once before it is first lent, until a
 * statement says the server is no longer the primary (primaryVerdict in errors.ts: a connection
 * refused, reset or closed, a server shutting down, a write refused for recovery) or a new
 * connection finds it in recovery. The pool is then retired: none of its connections is lent again
 * (statements already holding one finish or fail on their own, and the pool closes once they are
 * done), and the search starts again, at once and then backing off (from `searchBackoff.min`,
 * doubling, up to `searchBackoff.max`) until a primary answers. Meanwhile every statement fails at
 * once with a ConnectionError (StorageUnavailable for storage's callers), and once the primary is
 * found they are served again, without a restart. A statement that got no answer in time only
 * casts doubt: the server is asked again on a fresh connection, and its pool retired if that fails.
 *
 * The outcome of a commit cut off with its connection is unknown: it fails as StorageUnavailable,
 * like any statement whose connection is lost (commitBatches.ts), never as a success or a refusal.
 */
export interface PrimaryPool extends Pool {
  /** The server to LISTEN on now: the primary's, waiting up to `wait` for one while there is none. */
  readonly listenTarget: (wait: Duration.Duration) => Effect.Effect<ListenTarget, SqlError>
}

export interface PrimaryOptions {
  readonly hosts: DatabaseHosts
  /** The pool's settings, but for the URL (one per host). */
  readonly pool: Omit<PgPool.Config, "url">
  /** How long a statement may go without an answer (pool.ts). */
  readonly statementTimeout: Duration.Input
  /** Pause after a search that found no primary: from `min`, doubling, up to `max`. */
  readonly searchBackoff: { readonly min: Duration.Input; readonly max: Duration.Input }
}

interface Serving {
  readonly _tag: "Serving"
  readonly host: HostAddress
  readonly url: string
  readonly pool: PgPool.PgPool
  readonly scope: Scope.Closeable
  /** Lenders between reading the state and holding a connection: the pool closes once none is left. */
  entering: number
  retired: boolean
  /** A statement got no answer in time: the server is to be asked again. */
  suspected: boolean
  readonly settled: Deferred.Deferred<void>
}

interface Searching {
  readonly _tag: "Searching"
  /** Resolved when a primary is found. */
  readonly found: Deferred.Deferred<void>
  /** Why there is none, in a few words. */
  reason: string
}

type Probe = { readonly _tag: "Primary" } | { readonly _tag: "NotPrimary"; readonly reason: string }

const failure = (message: string) =>
  new SqlError({ reason: new ConnectionError({ cause: new Error(message), message, operation: "connect" }) })

/** The current primary's pool, following it from server to server while the scope lasts. */
export const makePrimaryPool = (options: PrimaryOptions): Effect.Effect<PrimaryPool, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const statementTimeout = Duration.fromInputUnsafe(options.statementTimeout)
    const probeTimeout = Duration.fromInputUnsafe(options.pool.connectTimeout ?? Duration.seconds(5))
    const minDelay = Duration.toMillis(Duration.fromInputUnsafe(options.searchBackoff.min))
    const maxDelay = Duration.toMillis(Duration.fromInputUnsafe(options.searchBackoff.max))
    const wake = yield* Queue.sliding<void>(1)
    const retiring: Array<Serving> = []
    /** Every pool not yet closed: the ones retired close when done, all of them with the scope. */
    const open = new Set<Scope.Closeable>()
    const closePool = (poolScope: Scope.Closeable) =>
      Effect.suspend(() => (open.delete(poolScope) ? Scope.close(poolScope, Exit.void) : Effect.void))
    /** Connections already seen out of recovery (each is asked once, before it is first lent). */
    const checked = new WeakSet<PgConnection.PgConnection>()
    let state: Serving | Searching = { _tag: "Searching", found: Deferred.makeUnsafe(), reason: "not looked for yet" }

    const noPrimary = (searching: Searching) => failure(`no primary: ${searching.reason}`)

    const retire = (serving: Serving, reason: string) => {
      if (serving.retired) return
      serving.retired = true
      if (serving.entering === 0) Deferred.doneUnsafe(serving.settled, Exit.void)
      if (state === serving) state = { _tag: "Searching", found: Deferred.makeUnsafe(), reason: `${hostText(serving.host)} ${reason}` }
      retiring.push(serving)
      Queue.offerUnsafe(wake, undefined)
    }

    const failed =
      (serving: Serving) =>
      (error: SqlError): Effect.Effect<void> =>
        Effect.sync(() => {
          const verdict = primaryVerdict(error)
          if (verdict === "lost") retire(serving, reasonOf(error))
          else if (verdict === "doubt" && !serving.retired && !serving.suspected) {
            serving.suspected = true
            Queue.offerUnsafe(wake, undefined)
          }
        })

    const bounded = <A>(statement: Effect.Effect<A, SqlError>, within: Duration.Duration) =>
      Effect.timeoutOrElse(statement, { duration: within, orElse: () => Effect.fail(noAnswer(within)) })

    const inRecovery = (connection: PgConnection.PgConnection, within: Duration.Duration) =>
      Effect.map(
        bounded(connection.query("SELECT pg_is_in_recovery() AS recovery"), within),
        (result) => (result.rows[0] as { readonly recovery?: unknown } | undefined)?.recovery !== false
      )

    /** A connection of the primary's pool, asked whether it is in recovery the first time it is lent. */
    const lend = (pin: boolean): Effect.Effect<Lent, SqlError, Scope.Scope> =>
      Effect.suspend(() => {
        const serving = state
        if (serving._tag === "Searching") return Effect.fail(noPrimary(serving))
        serving.entering++
        const onFailure = failed(serving)
        return serving.pool.get.pipe(
          Effect.onExit(() =>
            Effect.sync(() => {
              if (--serving.entering === 0 && serving.retired) Deferred.doneUnsafe(serving.settled, Exit.void)
            })
          ),
          Effect.flatMap((connection) => {
            if (serving.retired) return Effect.fail(failure(`${hostText(serving.host)} is no longer the primary`))
            if (checked.has(connection)) return Effect.succeed(connection)
            return inRecovery(connection, statementTimeout).pipe(
              Effect.flatMap((recovery) => {
                if (!recovery) {
                  checked.add(connection)
                  return Effect.succeed(connection)
                }
                retire(serving, "is in recovery")
                return Effect.fail(failure(`${hostText(serving.host)} is in recovery`))
              })
            )
          }),
          Effect.tapError(onFailure),
          Effect.flatMap((connection) => (pin ? connection.pin : Effect.succeed(connection))),
          Effect.map((connection) => ({ connection, failed: onFailure }))
        )
      })

    const lender: Lender = {
      get: lend(false),
      reserve: lend(true),
      use: (f) => Effect.scoped(Effect.flatMap(lend(false), f))
    }

    /** Whether a server is the primary now, asked on a connection of its own. */
    const probe = (url: string): Effect.Effect<Probe> =>
      Effect.scoped(
        Effect.flatMap(
          PgConnection.make({
            url: Redacted.make(url),
            connectTimeout: probeTimeout,
            ...(options.pool.applicationName === undefined ? {} : { applicationName: options.pool.applicationName })
          }),
          (connection) => inRecovery(connection, probeTimeout)
        )
      ).pipe(
        Effect.map((recovery): Probe => (recovery ? { _tag: "NotPrimary", reason: "is in recovery" } : { _tag: "Primary" })),
        Effect.catch((error) => Effect.succeed<Probe>({ _tag: "NotPrimary", reason: reasonOf(error) }))
      )

    /** One pass over the hosts in order: serving the first primary, or why none is. */
    const searchOnce = Effect.gen(function* () {
      const reasons: Array<string> = []
      for (const host of options.hosts.hosts) {
        const url = options.hosts.urlOf(host)
        const answer = yield* probe(url)
        if (answer._tag === "NotPrimary") {
          reasons.push(`${hostText(host)} ${answer.reason}`)
          continue
        }
        const poolScope = yield* Scope.make()
        open.add(poolScope)
        const pool = yield* Scope.provide(PgPool.make({ ...options.pool, url: Redacted.make(url) }), poolScope).pipe(
          Effect.tapError(() => closePool(poolScope))
        )
        const searching = state
        state = {
          _tag: "Serving",
          host,
          url,
          pool,
          scope: poolScope,
          entering: 0,
          retired: false,
          suspected: false,
          settled: Deferred.makeUnsafe()
        }
        if (searching._tag === "Searching") Deferred.doneUnsafe(searching.found, Exit.void)
        return null
      }
      return reasons.join("; ")
    })

    /** A retired pool closes once every lender that read it is done and its lent connections are back. */
    const close = (serving: Serving) => Effect.andThen(Deferred.await(serving.settled), closePool(serving.scope)).pipe(Effect.forkIn(scope))

    const supervise = Effect.gen(function* () {
      yield* Queue.take(wake)
      for (const serving of retiring.splice(0)) yield* close(serving)
      const now = state
      if (now._tag === "Serving" && now.suspected && !now.retired) {
        const answer = yield* probe(now.url)
        now.suspected = false
        if (answer._tag === "NotPrimary") retire(now, answer.reason)
        for (const serving of retiring.splice(0)) yield* close(serving)
      }
      // No log line here: the storage is built before the host's JSON logger is in place, and stdout
      // carries only its lines. What clients see (503 `unavailable`) says it instead.
      if (state._tag === "Serving") return
      const lost = state
      for (let delay = minDelay; ; delay = Math.min(delay * 2, maxDelay)) {
        const reason = yield* searchOnce
        if (reason === null) break
        lost.reason = reason
        yield* Effect.sleep(Duration.millis(delay))
      }
    }).pipe(Effect.forever)

    // At start, one pass: no primary among the hosts is a failure to connect, said host by host.
    // Registered before the supervisor starts, so run after it has stopped.
    yield* Effect.addFinalizer(() => Effect.forEach([...open], closePool, { discard: true }))
    const first = yield* searchOnce
    if (first !== null) return yield* Effect.fail(failure(`no primary: ${first}`))
    yield* Effect.forkScoped(supervise)

    const listenTarget = (wait: Duration.Duration): Effect.Effect<ListenTarget, SqlError> =>
      Effect.suspend(() => {
        const serving = state
        if (serving._tag === "Serving") return Effect.succeed({ url: serving.url, failed: failed(serving) })
        return Deferred.await(serving.found).pipe(
          Effect.timeoutOrElse({ duration: wait, orElse: () => Effect.fail(noPrimary(serving)) }),
          Effect.flatMap(() => {
            const now = state
            return now._tag === "Serving" ? Effect.succeed({ url: now.url, failed: failed(now) }) : Effect.fail(noPrimary(now))
          })
        )
      })

    return {
      bounded: yield* clientOver(lender, statementTimeout),
      unbounded: yield* clientOver(lender, null),
      lender,
      listenTarget
    }
  })
