import { Effect, type Scope } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"

/** A notification: its channel and payload. */
export type Signal = readonly [channel: string, payload: string]

/**
 * The batches' signals on Citus (citusCommits.ts says why the host sends them): NOTIFYs on the
 * coordinator's channels, sent after the commits are stored and answered, not before. Waiting for
 * that call cost every commit a second round trip, to another server, after the worker's: about a
 * tenth of a commit's time one at a time (bench/ANALYSIS.md, issue 31). Signals were already best
 * effort (a failed call fails nothing, and listeners poll too), so their answer is not waited for.
 *
 * One call at a time: the signals told while a call is out go together in the next, each
 * (channel, payload) once, so a busy host sends fewer and a silent coordinator holds back at most
 * one pending signal per workspace and channel. The calls run in the storage's scope and stop with
 * it.
 */
export interface Signals {
  readonly tell: (signals: ReadonlyArray<Signal>) => Effect.Effect<void>
}

/** The one statement that sends them (test/citus/routing tells it from a request's by its text). */
export const NOTIFY = "SELECT pg_notify(n.c, n.p) FROM unnest($1::text[], $2::text[]) AS n(c, p)"

export const makeSignals = (sql: SqlClient): Effect.Effect<Signals, never, Scope.Scope> =>
  Effect.map(Effect.scope, (scope) => {
    let pending = new Map<string, Signal>()
    let sending = false
    const drain: Effect.Effect<void> = Effect.suspend(() => {
      if (pending.size === 0) {
        sending = false
        return Effect.void
      }
      const signals = [...pending.values()]
      pending = new Map()
      const send = sql.unsafe(NOTIFY, [signals.map(([channel]) => channel), signals.map(([, payload]) => payload)])
      return Effect.flatMap(Effect.ignore(send), () => drain)
    })
    return {
      tell: (signals) =>
        Effect.suspend(() => {
          for (const signal of signals) pending.set(`${signal[0]}\u0000${signal[1]}`, signal)
          if (sending || pending.size === 0) return Effect.void
          sending = true
          return Effect.asVoid(Effect.forkIn(drain, scope))
        })
    }
  })
