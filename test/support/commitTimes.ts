import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { CommitTimes } from "./feedFollow.js"

/**
 * Commit times from the server at `url` (feedFollow.ts's CommitTimes): known where the server runs
 * with track_commit_timestamp (the embedded server of the run, pgGlobalSetup.ts), null elsewhere.
 */
export const commitTimes = (url: string): Effect.Effect<CommitTimes, never, Scope.Scope> =>
  Effect.map(
    PgClient.make({ url: Redacted.make(url), transformJson: false }).pipe(Effect.provide(Reactivity.layer), Effect.orDie),
    (sql) => (transactions) =>
      sql
        .unsafe<{ readonly transaction: string; readonly at: number | null }>(
          `SELECT x::text AS transaction, (extract(epoch FROM pg_xact_commit_timestamp(x::xid)) * 1000)::float8 AS at
           FROM unnest($1::xid8[]) AS x`,
          [transactions]
        )
        .pipe(Effect.orElseSucceed(() => transactions.map((transaction) => ({ transaction, at: null }))))
  )
