import { PgStorage } from "@dealstream/storage-pg"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as fc from "fast-check"
import pg from "pg"
import { inject } from "vitest"
import { readFeed } from "../../packages/storage-pg/src/readFeed.js"
import { citusDatabase } from "../support/citusDatabase.js"
import { follow, scenario } from "../support/feedFollow.js"

// Issue 31, item 2: the change feed stays gap-free per workspace on Citus, where each worker has
// its own transaction ids. The workers' ids are first moved well past the coordinator's, so a feed
// bound taken on the wrong server cannot pass by luck: the coordinator's would hide every event.

/** Ends `count` transactions with an id on each worker's copy of the database at `url`. */
const burnWorkerIds = (url: string, count: number) =>
  Effect.promise(async () => {
    const database = new URL(url).pathname.slice(1)
    for (const port of inject("citusPorts").slice(1)) {
      const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/${database}` })
      await client.connect()
      try {
        for (let i = 0; i < count; i++) await client.query("SELECT pg_current_xact_id()")
      } finally {
        await client.end()
      }
    }
  })

const event = (workspaceId: string, n: number) => ({
  type: "contact.updated",
  data: { n },
  metadata: { workspaceId, eventId: `evt_${workspaceId}_${n}`, requestId: null, actor: null }
})

describe("the change feed on Citus", () => {
  it.live(
    "takes its bound from the workspace's worker: the coordinator's own bound (the planted bug) hides every event",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        yield* burnWorkerIds(url, 2_000)
        const storage = yield* PgStorage.make(url)
        const ws = `ws_bound_${Date.now().toString(36)}`
        for (let n = 1; n <= 3; n++) {
          yield* storage.commit({ streams: [{ streamId: `con_${ws}`, expectedVersion: n - 1, events: [event(ws, n)] }], documents: [] })
        }
        const read = { workspaceId: ws, after: null, types: [], limit: 10 } as const
        expect((yield* storage.readFeed(read)).events.map((e) => e.data["n"])).toEqual([1, 2, 3])
        const coordinator = yield* PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 })
        expect((yield* readFeed(coordinator)(read)).events).toEqual([])
      }).pipe(Effect.scoped, Effect.provide(Reactivity.layer)),
    120_000
  )

  it.live(
    "followed while two hosts write: every event of the workspace once, each stream in order",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        yield* burnWorkerIds(url, 2_000)
        const a = yield* PgStorage.make(url)
        const b = yield* PgStorage.make(url)
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(scenario, (s) => Effect.runPromise(follow([a, b], s))),
            // Fewer runs than on one server: a Citus commit costs several times one there today
            // (docs/citus.md), and each run makes up to 150.
            { numRuns: 4, plugins: [fc.interruptAfterTimeLimit(105_000, { failOnInterrupt: true })] }
          )
        )
      }).pipe(Effect.scoped),
    120_000
  )
})
