import { describe, expect, it } from "@effect/vitest"
import { PgStorage } from "@dealstream/storage-pg"
import { Effect, Exit, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { event, fresh } from "../../packages/core/src/testing/storageFixtures.js"
import { delegated } from "../../packages/storage-pg/src/citusDelegation.js"
import { paramsOf } from "../../packages/storage-pg/src/commit.js"
import { NOT_HERE } from "../../packages/storage-pg/src/functions/ds_workspace_here.js"
import { sqlStateOf } from "../../packages/storage-pg/src/internal/sqlState.js"
import { makePool } from "../../packages/storage-pg/src/pool.js"
import { citusDatabase } from "../support/citusDatabase.js"

// Issue 31: Citus declines, silently, to delegate a function call on a backend where a statement
// once failed while it planned subqueries (its count of nested planning is left raised), and runs
// the call on the coordinator instead. A commit run there takes the coordinator's transaction ids,
// which the worker's feed bound does not order: the change feed lost such events in the host
// suites until ds_workspace_here refused them (packages/storage-pg/src/functions/ds_workspace_here.ts).

/** A statement that fails inside Citus's planning of a CTE: a multi-shard FOR UPDATE. */
const POISON = "WITH due AS MATERIALIZED (SELECT workspace_id FROM ds_events FOR UPDATE SKIP LOCKED LIMIT 1) SELECT * FROM due"

const onePool = (url: string) =>
  makePool({ url: Redacted.make(url), maxConnections: 1, statementTimeout: "30 seconds" }).pipe(Effect.provide(Reactivity.layer))

const commitOf = (workspace: string) =>
  JSON.stringify([
    paramsOf(
      { streams: [{ streamId: fresh("con"), expectedVersion: 0, events: [event(workspace, "contact.created")] }], documents: [] },
      new Date().toISOString()
    )
  ])

describe("delegated calls on Citus", () => {
  it.effect(
    "a backend that stopped delegating is refused there, retired, and the call goes out again on another",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        yield* PgStorage.make(url) // migrates, and so distributes
        const { bounded: sql } = yield* onePool(url)
        const ws = fresh("ws")
        const whereCalled = () =>
          Effect.map(sql.unsafe<{ readonly group: number }>("SELECT ds_where_in($1) AS group", [ws]), ([row]) => row!.group)
        // A delegated function that only says where it ran: the Citus behaviour the guard is for.
        yield* sql.unsafe(`CREATE FUNCTION ds_where_in(workspace text) RETURNS integer LANGUAGE sql AS
          $$ SELECT groupid FROM pg_dist_local_group $$`)
        yield* sql.unsafe("SELECT create_distributed_function('ds_where_in(text)', 'workspace', colocate_with := 'ds_events')")
        expect(yield* whereCalled()).toBeGreaterThan(0)
        expect(Exit.isFailure(yield* Effect.exit(sql.unsafe(POISON)))).toBe(true)
        // The pool's one connection now runs every "delegated" call on the coordinator (group 0).
        expect(yield* whereCalled()).toBe(0)

        // A commit through it is refused there, as off its worker, and stores nothing...
        const refused = yield* Effect.flip(sql.unsafe("SELECT ds_commit_batch_in($1::text, $2::jsonb) AS outcome", [ws, commitOf(ws)]))
        expect(sqlStateOf(refused).code).toBe(NOT_HERE)
        expect(yield* sql.unsafe("SELECT 1 FROM ds_events WHERE workspace_id = $1", [ws])).toEqual([])
        // ...and the pool retired that connection: the next call runs on a new backend, delegated.
        expect(yield* whereCalled()).toBeGreaterThan(0)

        // As the storage sends it: poisoned again, the commit goes out once more and lands on the worker.
        yield* Effect.exit(sql.unsafe(POISON))
        const [row] = yield* delegated(
          sql.unsafe<{ readonly outcome: ReadonlyArray<{ readonly events: ReadonlyArray<readonly [number]> }> }>(
            "SELECT ds_commit_batch_in($1::text, $2::jsonb) AS outcome",
            [ws, commitOf(ws)]
          )
        )
        // A worker numbers its events from its group id shifted 48 bits; the coordinator from 1.
        expect(row!.outcome[0]!.events[0]![0]).toBeGreaterThanOrEqual(2 ** 48)
        // And the feed's bound, the other call that is right only on the worker, refuses the same way.
        yield* Effect.exit(sql.unsafe(POISON))
        const bound = yield* Effect.flip(sql.unsafe("SELECT ds_feed_bound_in($1) AS bound", [ws]))
        expect(sqlStateOf(bound).code).toBe(NOT_HERE)
      }).pipe(Effect.scoped),
    60_000
  )
})
