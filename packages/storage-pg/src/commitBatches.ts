import { noteWritten, type StoragePosition, WrittenAt } from "@dealstream/core"
import { Deferred, Effect, Exit, Queue, type Scope } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import type { CitusCommits } from "./citusCommits.js"

/**
 * What `ds_commit` is given, before encoding: streams, events, redacted streams, removes, upserts;
 * and for a commit that reads settings or moves them on, the settings versions it read (`q`, maybe
 * empty), which sends it through `ds_commit_with_settings` (functions/ds_commit_with_settings.ts)
 * instead.
 */
export interface CommitParams {
  readonly s: ReadonlyArray<unknown>
  readonly e: ReadonlyArray<unknown>
  readonly r: ReadonlyArray<string>
  readonly d: ReadonlyArray<unknown>
  readonly u: ReadonlyArray<unknown>
  readonly at: string
  readonly q?: ReadonlyArray<unknown>
  /** Its inline projections' statements, `[{n, q, p}]` (functions/inlineStatements.ts): none when absent. */
  readonly x?: ReadonlyArray<InlineStatementParam>
}

/** One inline projection statement as ds_commit_batch runs it: the projection's name, the SQL, its parameters as text. */
export interface InlineStatementParam {
  readonly n: string
  readonly q: string
  readonly p: ReadonlyArray<string | null>
}

export type CommitOutcome =
  /** [streamId, expected, actual] of the first stream whose version did not match. */
  | { readonly conflict: readonly [string, number, number] }
  /** [sequence, streamId, streamVersion] of each appended event. */
  | { readonly events: ReadonlyArray<readonly [number, string, number]> }
  /** The commit failed inside a batch and was undone alone (see functions/ds_commit_batch.ts). */
  | {
      readonly error: {
        readonly code: string
        readonly constraint: string | null
        readonly message: string
        /** The inline projection whose statement failed; absent or null for any other failure. */
        readonly projection?: string | null
      }
    }

/**
 * Stores a commit and answers its outcome; a stored one's position (core's positions.ts) is noted
 * in the caller's WrittenAt.
 */
export type SubmitCommit = (params: CommitParams) => Effect.Effect<CommitOutcome, SqlError>

export interface CommitBatches {
  readonly submit: SubmitCommit
  /** Statements sent so far and the commits they carried (tests and benchmarks read the grouping). */
  readonly sent: () => { readonly statements: number; readonly commits: number }
}

export interface CommitBatchOptions {
  /** Batches in flight at once, each on its own connection. */
  readonly lanes: number
  /** Commits per batch at most. */
  readonly maxBatch: number
  /** Told the position of every batch stored (the replicas' lag is measured against it). */
  readonly written?: (position: StoragePosition) => void
  /**
   * On Citus: each batch is split by workspace and sent to the worker holding it (citusCommits.ts),
   * and the host tells the feed's and settings' listeners itself. Absent on plain PostgreSQL.
   */
  readonly citus?: CitusCommits
}

const argumentsText = (settings: boolean) =>
  `$1::jsonb, $2::jsonb, $3::text[], $4::jsonb, $5::jsonb, $6::timestamptz${settings ? ", $7::jsonb" : ""}`
const callText = (fn: string, settings: boolean) => `SELECT ${fn}(${argumentsText(settings)}) AS outcome`
const single = callText("ds_commit", false)
const withSettings = callText("ds_commit_with_settings", true)

/**
 * The statement that stores one commit alone, and its arguments: ds_commit, or
 * ds_commit_with_settings for a commit that touches settings. `fn` names another function of
 * ds_commit's arguments (tests plant one).
 */
export const commitCall = (p: CommitParams, fn?: string): readonly [string, Array<unknown>] => {
  const args: Array<unknown> = [JSON.stringify(p.s), JSON.stringify(p.e), [...p.r], JSON.stringify(p.d), JSON.stringify(p.u), p.at]
  if (p.q !== undefined) return [fn === undefined ? withSettings : callText(fn, true), [...args, JSON.stringify(p.q)]]
  return [fn === undefined ? single : callText(fn, false), args]
}

// What the lanes send: the same functions through their procedures (functions/committedAt.ts),
// which also answer the commit's position.
const singleAt = `CALL ds_commit_at(${argumentsText(false)})`
const withSettingsAt = `CALL ds_commit_with_settings_at(${argumentsText(true)})`
const batch = `CALL ds_commit_batch_at($1::jsonb)`
const committedAtCall = (p: CommitParams): readonly [string, Array<unknown>] => {
  const [text, args] = commitCall(p)
  return [text === single ? singleAt : withSettingsAt, args]
}

/** A WAL position as PostgreSQL writes it (`16/B374D848`), as one number. */
export const lsnPosition = (text: string): StoragePosition => {
  const slash = text.indexOf("/")
  return (BigInt(`0x${text.slice(0, slash)}`) << 32n) | BigInt(`0x${text.slice(slash + 1)}`)
}

export interface Sent {
  readonly outcomes: ReadonlyArray<CommitOutcome>
  readonly position: StoragePosition
}

interface Waiting {
  readonly params: CommitParams
  readonly done: Deferred.Deferred<{ readonly outcome: CommitOutcome; readonly position: StoragePosition }, SqlError>
}

/**
 * Group commit. Commits wait in one queue; each lane takes whatever has gathered while it was busy
 * and sends it as one statement, so under load many commits share a transaction and a WAL flush,
 * while a lone commit goes out at once, as a plain `ds_commit` call, without waiting for company.
 * Every commit is still atomic and answered on its own: its outcome, or the error of its batch.
 */
export const makeCommitBatches = (sql: SqlClient, options: CommitBatchOptions): Effect.Effect<CommitBatches, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Waiting>()
    let statements = 0
    let commits = 0
    yield* Effect.addFinalizer(() => Queue.shutdown(queue))

    type Answer = { readonly outcome: CommitOutcome; readonly written_at: string }
    const send = (params: ReadonlyArray<CommitParams>): Effect.Effect<Sent, SqlError> => {
      if (options.citus !== undefined) return options.citus.send(sql, params)
      // A lone commit with inline projection statements goes as a batch of one: ds_commit has no room for them.
      if (params.length === 1 && params[0]!.x === undefined) {
        const [text, args] = committedAtCall(params[0]!)
        return Effect.map(sql.unsafe<Answer>(text, args), ([row]) => ({
          outcomes: [row?.outcome ?? { events: [] }],
          position: lsnPosition(row!.written_at)
        }))
      }
      return Effect.flatMap(sql.unsafe<Answer>(batch, [JSON.stringify(params)]), ([row]) =>
        Array.isArray(row?.outcome) && row.outcome.length === params.length
          ? Effect.succeed({ outcomes: row.outcome as ReadonlyArray<CommitOutcome>, position: lsnPosition(row.written_at) })
          : Effect.fail(
              new SqlError({
                reason: new UnknownError({
                  cause: row,
                  message: "ds_commit_batch answered for a different number of commits",
                  operation: "query"
                })
              })
            )
      )
    }

    const lane = Effect.gen(function* () {
      const waiting = yield* Queue.takeBetween(queue, 1, options.maxBatch)
      statements++
      commits += waiting.length
      const exit = yield* Effect.exit(send(waiting.map((w) => w.params)))
      if (Exit.isSuccess(exit)) options.written?.(exit.value.position)
      yield* Effect.forEach(
        waiting,
        (w, i) =>
          Deferred.done(
            w.done,
            Exit.map(exit, ({ outcomes, position }) => ({ outcome: outcomes[i]!, position }))
          ),
        { discard: true }
      )
    }).pipe(Effect.forever)
    yield* Effect.forkScoped(
      Effect.all(
        Array.from({ length: options.lanes }, () => lane),
        { concurrency: "unbounded", discard: true }
      )
    )

    return {
      submit: (params) =>
        Effect.flatMap(Deferred.make<{ readonly outcome: CommitOutcome; readonly position: StoragePosition }, SqlError>(), (done) =>
          Effect.andThen(Queue.offer(queue, { params, done }), Deferred.await(done))
        ).pipe(
          Effect.flatMap(
            ({ outcome, position }): Effect.Effect<CommitOutcome> =>
              "events" in outcome
                ? WrittenAt.useSync((written) => {
                    noteWritten(written, position)
                    return outcome
                  })
                : Effect.succeed(outcome)
          )
        ),
      sent: () => ({ statements, commits })
    }
  })
