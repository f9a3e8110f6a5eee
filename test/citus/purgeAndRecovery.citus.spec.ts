import { describe, expect, it } from "@effect/vitest"
import { PgStorage } from "@dealstream/storage-pg"
import { Effect } from "effect"
import { event, fresh } from "../../packages/core/src/testing/storageFixtures.js"
import { workspaceHeadSql } from "../../packages/storage-pg/src/headSequence.js"
import { readWorkspaceLogParams, readWorkspaceLogSql } from "../../packages/storage-pg/src/readWorkspaceLog.js"
import { purgedAndCovered, racingRunners } from "../engine/webhookRecovery.js"
import { planOn } from "../support/citusPlans.js"
import { citusDatabase } from "../support/citusDatabase.js"
import { preparedDuring, workersOf } from "../support/citusTransactions.js"

// Issue 31: the 30-day purge and the webhook recovery runners on the cluster (docs/citus.md).

describe("purge and webhook recovery on Citus", () => {
  it.effect(
    "skips purged and covered events, folds each payload, one job at a time",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const { queue, storage } = yield* PgStorage.makeWithQueue(url)
        const run = yield* preparedDuring(url, purgedAndCovered(storage, queue))
        expect(run.prepared).toEqual([])
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
  it.effect(
    "runners racing and one killed mid-way schedule each event once",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const { queue, storage } = yield* PgStorage.makeWithQueue(url)
        const run = yield* preparedDuring(url, racingRunners(storage, queue))
        expect(run.prepared).toEqual([])
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.live(
    "a runner's head and walk of the log are router queries on the workspace's worker, each an index probe",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const storage = yield* PgStorage.make(url)
        const ws = fresh("ws")
        yield* storage.commit({
          streams: [{ streamId: fresh("con"), expectedVersion: 0, events: [event(ws, "contact.created")] }],
          documents: []
        })
        const head = yield* planOn(url, workspaceHeadSql, [ws])
        expect(head.tasks).toEqual([1])
        expect(head.nodes).not.toContain("Seq Scan")
        const until = yield* storage.workspaceHead(ws)
        const walk = yield* planOn(
          url,
          readWorkspaceLogSql(true),
          readWorkspaceLogParams({ workspaceId: ws, after: null, until: until!, types: ["contact.created"], limit: 500 })
        )
        expect(walk.tasks).toEqual([1])
        expect(walk.nodes).not.toContain("Seq Scan")
        expect(walk.nodes).not.toContain("Sort")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a rebuild's total counts the events of every worker, though each hands out sequences from its own range",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const storage = yield* PgStorage.make(url)
        const before = yield* storage.eventCount
        // Workspaces until both workers hold one, each given an event.
        const byWorker = new Map<number, string>()
        while (byWorker.size < 2) {
          const ws = fresh("ws")
          const [port] = yield* workersOf(url, "ds_events", [ws])
          if (byWorker.has(port!)) continue
          byWorker.set(port!, ws)
          yield* storage.commit({
            streams: [{ streamId: fresh("con"), expectedVersion: 0, events: [event(ws, "contact.created")] }],
            documents: []
          })
        }
        const heads = yield* Effect.forEach([...byWorker.values()], (ws) => storage.workspaceHead(ws))
        // Each worker hands out sequences from its group id shifted left by 48 bits: the highest
        // sequence is no count of anything.
        expect(Math.max(...heads.map((head) => head!.sequence))).toBeGreaterThan(2 ** 48)
        expect((yield* storage.eventCount) - before).toBe(2)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
