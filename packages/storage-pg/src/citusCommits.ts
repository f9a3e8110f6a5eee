import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import { selectCall } from "./citusDelegation.js"
import type { Signal, Signals } from "./citusSignals.js"
import type { WorkerRoutes } from "./citusWorkers.js"
import type { CommitOutcome, CommitParams, Sent } from "./commitBatches.js"

/**
 * Group commit on Citus. A batch's commits are split by workspace, and each workspace's share goes
 * as one `ds_commit_batch_in(workspace, items)` call to the worker holding the workspace, straight
 * from the host (citusWorkers.ts; through the coordinator, which delegates it there, when no worker
 * is found): one local transaction there, with that worker's transaction ids and feed marks,
 * so the feed's bound (feedBound.ts) holds per worker as it does on one server. The shares go out
 * at once, each on a connection of its own. A commit that also writes a document of another
 * workspace (an API key's entry in the system workspace) still runs on its log's worker, which
 * writes the other worker's row in a distributed transaction of its own: rare, correct, slower.
 *
 * Listeners hear of commits from the host instead of the feed trigger (citus.ts drops it): on Citus
 * a trigger's NOTIFY would sound on a worker, where no host listens, and PostgreSQL refuses NOTIFY
 * in a transaction a distributed commit prepares. The host tells the coordinator's channel once the
 * commits are stored, as the trigger would: the workspaces that gained record events, and those
 * whose settings moved on. It does so after answering (citusSignals.ts): a failure of that call
 * fails nothing, and signals stay best effort, as on one server: workers also poll.
 *
 * A cluster has no single WAL position, so a position here is this host's clock in microseconds,
 * moved on by at least one at each batch: it only grows, and `position()` is at or after every
 * commit this host stored. It tells nothing of any server's replay, and replicas (which need that)
 * are not offered with Citus (README, "Growing past one database server").
 */
export interface CitusCommits {
  readonly send: (sql: SqlClient, params: ReadonlyArray<CommitParams>) => Effect.Effect<Sent, SqlError>
  readonly position: () => bigint
  /** Where a workspace's calls go (citusWorkers.ts): its commits, and its feed reads. */
  readonly routes: WorkerRoutes
}

interface Named {
  readonly w?: string
}
interface EventParam extends Named {
  readonly t?: string
}
interface StreamParam extends Named {
  readonly settings?: boolean
  readonly added?: number
}

/**
 * Where a commit runs: the one workspace whose log it appends to (documents may name others: an API
 * key's entry in the system workspace); for a commit of documents alone, the one workspace they
 * name, or null (the coordinator) when they name several. Several logs in one commit ("several")
 * are refused on Citus: each worker's feed bound needs its workspaces' commits to run there, and
 * the engine never makes such a commit (every command commits in its request's workspace).
 */
export const workspaceOf = (p: CommitParams): string | null | "several" => {
  const logs = new Set((p.e as ReadonlyArray<Named>).flatMap((event) => (event.w === undefined ? [] : [event.w])))
  if (logs.size > 1) return "several"
  if (logs.size === 1) return [...logs][0]!
  const named = new Set<string>()
  for (const list of [p.s, p.u, p.d, p.q ?? []]) {
    for (const item of list as ReadonlyArray<Named>) if (item.w !== undefined && item.w !== "") named.add(item.w)
  }
  return named.size === 1 ? [...named][0]! : null
}

const SEVERAL_LOGS: CommitOutcome = {
  error: {
    code: "0A000",
    constraint: null,
    message: "on Citus a commit appends to one workspace's log: this one names several (docs/citus.md)"
  }
}

/**
 * Inline projections are refused on Citus: their statements would run inside the function Citus
 * delegates to a worker, where the embedder's tables (not distributed by workspace alongside ours)
 * cannot be written without a distributed transaction, which nothing on a request's path may need.
 */
const inlineRefused = (projection: string): CommitOutcome => ({
  error: {
    code: "0A000",
    constraint: null,
    message: "inline projections do not run on Citus: register them on a single PostgreSQL server or memory storage",
    projection
  }
})

const wrongCount = (cause: unknown) =>
  new SqlError({
    reason: new UnknownError({ cause, message: "ds_commit_batch answered for a different number of commits", operation: "query" })
  })

const outcomesOf = (rows: ReadonlyArray<{ readonly outcome: unknown }>, expected: number) => {
  const outcome = rows[0]?.outcome
  return Array.isArray(outcome) && outcome.length === expected
    ? Effect.succeed(outcome as ReadonlyArray<CommitOutcome>)
    : Effect.fail(wrongCount(outcome))
}

/** `feedPrefixes`: the event type prefixes of the change feed (core's recordTypeSet), as the trigger's. */
export const citusCommits = (feedPrefixes: ReadonlyArray<string>, routes: WorkerRoutes, signals: Signals): CitusCommits => {
  let last = 0n
  const position = () => {
    const now = BigInt(Date.now()) * 1000n
    last = now > last ? now : last
    return last
  }
  const next = () => {
    position()
    last += 1n
    return last
  }
  return { send: (sql, params) => sendShares(sql, routes, signals, params, feedPrefixes, next), position, routes }
}

const sendShares = (
  sql: SqlClient,
  routes: WorkerRoutes,
  signals: Signals,
  params: ReadonlyArray<CommitParams>,
  feedPrefixes: ReadonlyArray<string>,
  next: () => bigint
): Effect.Effect<Sent, SqlError> =>
  Effect.gen(function* () {
    const shares = new Map<string | null, Array<number>>()
    const outcomes = new Array<CommitOutcome>(params.length)
    params.forEach((p, i) => {
      if (p.x !== undefined) {
        outcomes[i] = inlineRefused(p.x[0]?.n ?? "")
        return
      }
      const workspace = workspaceOf(p)
      if (workspace === "several") {
        outcomes[i] = SEVERAL_LOGS
        return
      }
      const share = shares.get(workspace)
      if (share === undefined) shares.set(workspace, [i])
      else share.push(i)
    })
    yield* Effect.forEach(
      shares,
      ([workspace, indices]) => {
        const items = JSON.stringify(indices.map((i) => params[i]))
        const call =
          workspace === null
            ? sql.unsafe<{ readonly outcome: unknown }>("SELECT ds_commit_batch($1::jsonb) AS outcome", [items])
            : routes.commit(workspace, (on, direct) =>
                on.unsafe<{ readonly outcome: unknown }>(selectCall("ds_commit_batch_in($1::text, $2::jsonb) AS outcome", direct), [
                  workspace,
                  items
                ])
              )
        return Effect.map(
          Effect.flatMap(call, (rows) => outcomesOf(rows, indices.length)),
          (answered) => {
            indices.forEach((i, j) => {
              outcomes[i] = answered[j]!
            })
          }
        )
      },
      { concurrency: "unbounded", discard: true }
    )
    const told: Array<Signal> = []
    const tell = (channel: string, tag: string, workspaces: Iterable<string>) => {
      for (const workspaceId of workspaces) told.push([channel, JSON.stringify({ _tag: tag, workspaceId })])
    }
    const fed = new Set<string>()
    const settled = new Set<string>()
    params.forEach((p, i) => {
      if (!("events" in outcomes[i]!)) return
      for (const event of p.e as ReadonlyArray<EventParam>) {
        if (event.w !== undefined && feedPrefixes.some((prefix) => event.t?.startsWith(prefix) === true)) fed.add(event.w)
      }
      for (const stream of p.s as ReadonlyArray<StreamParam>) {
        if (stream.w !== undefined && stream.settings === true && (stream.added ?? 0) > 0) settled.add(stream.w)
      }
    })
    tell("dealstream_feed", "Appended", fed)
    tell("dealstream_settings", "Changed", settled)
    yield* signals.tell(told)
    return { outcomes, position: next() }
  })
