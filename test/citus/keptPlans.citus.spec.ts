import type { StorageService } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type pg from "pg"
import { event, fresh, upsert } from "../../packages/core/src/testing/storageFixtures.js"
import { selectCall } from "../../packages/storage-pg/src/citusDelegation.js"
import { paramsOf } from "../../packages/storage-pg/src/commit.js"
import { PgStorage } from "../../packages/storage-pg/src/index.js"
import { citusDatabase } from "../support/citusDatabase.js"
import { connect, nodeUrl, placement, query } from "../support/citusShards.js"

// Issue 31: a call the host sends straight to a workspace's worker keeps its plan there
// (packages/storage-pg/src/functions/keptPlan.ts). Citus has PostgreSQL plan a lone call of a
// distributed function afresh at every run, even where it then runs the call itself; the form the
// host sends to a worker is planned once, then kept. `pg_prepared_statements` counts both.

const RUNS = 8

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`

/** `statement` prepared on `worker` and run RUNS times with the arguments `argsOf(i)` gives: its plan counts. */
const plansOf = (worker: pg.Client, name: string, statement: string, argsOf: (i: number) => ReadonlyArray<string>) =>
  Effect.gen(function* () {
    yield* query(worker, `PREPARE ${name} AS ${statement}`)
    for (let i = 0; i < RUNS; i++) yield* query(worker, `EXECUTE ${name}(${argsOf(i).map(literal).join(", ")})`)
    const [row] = yield* query<{ readonly generic: string; readonly custom: string }>(
      worker,
      "SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE name = $1",
      [name]
    )
    return { generic: Number(row!.generic), custom: Number(row!.custom) }
  })

const contactItems = (ws: string) => {
  const id = fresh("con")
  const commit = {
    streams: [{ streamId: id, expectedVersion: 0, events: [event(ws, "contact.created", { id }, 1)] }],
    documents: [upsert(ws, id, { email: `${id}@example.com` })]
  }
  return JSON.stringify([paramsOf(commit, new Date().toISOString())])
}

describe("a delegated function's call sent to its workspace's worker", () => {
  it.live(
    "keeps its plan there, where the lone call is planned at every run",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const storage: StorageService = yield* PgStorage.make(url)
        const coordinator = yield* connect(url)
        const ws = fresh("ws")
        yield* storage.commit({
          streams: [{ streamId: fresh("con"), expectedVersion: 0, events: [event(ws, "contact.created", {}, 1)] }],
          documents: []
        })
        const { source } = yield* placement(coordinator, ws)
        const worker = yield* connect(nodeUrl(source, new URL(url).pathname.slice(1)))

        const commit = "ds_commit_batch_in($1::text, $2::jsonb) AS outcome"
        const kept = yield* plansOf(worker, "commit_kept", selectCall(commit, true), () => [ws, contactItems(ws)])
        const lone = yield* plansOf(worker, "commit_lone", selectCall(commit, false), () => [ws, contactItems(ws)])
        // PostgreSQL tries five custom plans before it settles on the generic one.
        expect(kept).toEqual({ generic: RUNS - 5, custom: 5 })
        expect(lone).toEqual({ generic: 0, custom: RUNS })

        const bound = "ds_feed_bound_in($1) AS bound"
        expect(yield* plansOf(worker, "bound_kept", selectCall(bound, true), () => [ws])).toEqual({ generic: RUNS - 5, custom: 5 })
        expect(yield* plansOf(worker, "bound_lone", selectCall(bound, false), () => [ws])).toEqual({ generic: 0, custom: RUNS })

        // Every commit made that way is stored.
        const [row] = yield* query<{ readonly n: string }>(coordinator, "SELECT count(*) AS n FROM ds_contacts WHERE workspace_id = $1", [
          ws
        ])
        expect(Number(row!.n)).toBe(2 * RUNS)
      }).pipe(Effect.scoped),
    120_000
  )
})
