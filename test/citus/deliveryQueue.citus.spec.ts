import type { DocumentUpsert } from "@dealstream/core"
import { deliveryQueueContractSuite, OtherHost } from "@dealstream/core/testing"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, inject } from "vitest"
import { Effect, Layer } from "effect"
import { claimSql } from "../../packages/storage-pg/src/claimDeliveries.js"
import { releaseSql } from "../../packages/storage-pg/src/releaseLeases.js"
import { citusDatabaseOn, dropCitusDatabase } from "../support/citusCluster.js"
import { citusDatabase } from "../support/citusDatabase.js"
import { preparedDuring, rowsOn, workersOf } from "../support/citusTransactions.js"

// Issue 31: the delivery queue on Citus (packages/storage-pg/src/citusQueue.ts).

/**
 * One database for the contract's cases, each starting with the queue emptied: the contract wants
 * a queue of its own per case (claims see every workspace), and a Citus database of its own costs
 * each case seconds (one on every node, then a migrate that distributes every table).
 */
let shared: Promise<string> | undefined
const ports = () => inject("citusPorts") ?? []
afterAll(async () => {
  if (shared !== undefined) await dropCitusDatabase(ports(), await shared)
})
const emptiedQueue = Effect.promise(async () => {
  shared ??= citusDatabaseOn(ports())
  const url = await shared
  const [table] = await rowsOn<{ readonly present: boolean }>(url, "SELECT to_regclass('ds_deliveries') IS NOT NULL AS present")
  if (table?.present === true) await rowsOn(url, "TRUNCATE ds_deliveries")
  return url
})

/** Two hosts on the database: two pools, two listeners, as DeliveryQueue.pg.spec.ts on one server. */
const twoHosts = Layer.unwrap(
  Effect.map(emptiedQueue, (url) => {
    const options = { url, maxConnections: 5 }
    return Layer.merge(PgStorage.layer(options), Layer.effect(OtherHost, PgStorage.makeWithQueue(options)))
  })
)

deliveryQueueContractSuite("postgres on Citus", twoHosts)

const due = (workspaceId: string, id: string): DocumentUpsert => ({
  _tag: "Upsert",
  collection: "delivery",
  workspaceId,
  id,
  version: 1,
  deletedAt: null,
  uniqueKey: null,
  searchWords: [],
  data: {
    id,
    status: "pending",
    webhook_id: `wh_${workspaceId}`,
    next_attempt_at: "2030-01-01T00:00:00.000Z",
    event_stream_id: "con_x",
    event_version: 1
  }
})

const lease = { now: "2030-01-01T00:00:10.000Z", owner: "host-a", leaseUntil: "2030-01-01T00:01:00.000Z" }

describe("the delivery queue on Citus", () => {
  it.live(
    "claims and releases across workspaces on both workers without a distributed transaction",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const { queue, storage } = yield* PgStorage.makeWithQueue(url)
        const workspaces = Array.from({ length: 8 }, (_, n) => `ws_queue_${n}`)
        // One commit per workspace, each on its worker: the seeding is not what is measured.
        for (const ws of workspaces) yield* storage.commit({ streams: [], documents: [1, 2, 3].map((n) => due(ws, `dlv_${ws}_${n}`)) })
        expect(new Set(yield* workersOf(url, "ds_deliveries", workspaces)).size).toBe(2)

        const claimed = yield* preparedDuring(url, queue.claim({ ...lease, limit: 100 }))
        expect(claimed.value).toHaveLength(24)
        expect(claimed.prepared).toEqual([])
        const released = yield* preparedDuring(url, queue.release("host-a"))
        expect(released.prepared).toEqual([])
        expect(yield* queue.claim({ ...lease, owner: "host-b", limit: 100 })).toHaveLength(24)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  // The planted bug: one server's statements, run on the coordinator as they are on one server.
  it.live(
    "one server's claim is refused by Citus, and its release writes on both workers in a two-phase commit",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const storage = yield* Effect.map(PgStorage.makeWithQueue(url), (services) => services.storage)
        const workspaces = ["ws_one", "ws_two", "ws_three", "ws_four"]
        for (const ws of workspaces) yield* storage.commit({ streams: [], documents: [due(ws, `dlv_${ws}`)] })
        const refused = yield* Effect.promise(() =>
          rowsOn(url, claimSql, [lease.now, 10, lease.owner, lease.leaseUntil, [], 10]).then(
            () => "claimed",
            (error: Error) => error.message
          )
        )
        expect(refused).toMatch(/could not run distributed query with FOR UPDATE/)
        const released = yield* preparedDuring(
          url,
          Effect.promise(() => rowsOn(url, releaseSql, ["nobody"]))
        )
        // A row per connection the release wrote on: at least one on each worker, more when Citus
        // opened several to one worker (as it does under load).
        expect(released.prepared.length).toBeGreaterThanOrEqual(2)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
