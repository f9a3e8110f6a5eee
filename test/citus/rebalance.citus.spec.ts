import type { StorageService } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { inject } from "vitest"
import { addWorker, startCitusCluster } from "../support/citusCluster.js"
import { citusDatabase } from "../support/citusDatabase.js"
import { connect, placement, query, sourceAhead, workerIdsHeld } from "../support/citusShards.js"
import { expectEachOnceInOrder, trafficAcrossMove, trafficEvent } from "../support/citusTraffic.js"
import { readUntil } from "../support/feedPolling.js"

// Issue 31: growing the cluster as docs/citus.md says, by adding a worker and running Citus's
// background rebalancer, while two hosts write to workspaces in every shard group and a follower
// reads each one's feed. The new worker's transaction ids start far below the old workers', so a
// workspace it takes over would sort its new events before its old ones without the feed offset.

/** Writers per host and workspace; commits each makes once the rebalance is done. */
const WRITERS = 1
const COMMITS_AFTER_MOVE = 6
const SEEN_BEFORE_MOVE = 10

describe("adding a worker and rebalancing while hosts serve every shard group", () => {
  it.live(
    "citus_rebalance_start moves shard groups onto the new worker; every acknowledged event is stored once, and each follower sees each once, in feed order",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const added = yield* Effect.acquireRelease(
          Effect.promise(() => startCitusCluster(0)),
          (node) => Effect.promise(() => node.stop())
        )
        const newPort = added.ports[0]!
        const hosts: readonly [StorageService, StorageService] = [yield* PgStorage.make(url), yield* PgStorage.make(url)]
        const coordinator = yield* connect(url)
        const tag = Date.now().toString(36)

        // A workspace in each shard group (4 in these tests), so whichever group moves carries one.
        const [counted] = yield* query<{ readonly shards: number }>(
          coordinator,
          "SELECT count(*)::int AS shards FROM pg_dist_shard WHERE logicalrelid = 'ds_events'::regclass"
        )
        const byShard = new Map<string, string>()
        for (let i = 0; byShard.size < counted!.shards; i++) {
          const workspace = `ws_grow_${tag}_${i}`
          const { shard } = yield* placement(coordinator, workspace)
          if (!byShard.has(shard)) byShard.set(shard, workspace)
        }
        const workspaces = [...byShard.values()]
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* workerIdsHeld
            for (const port of inject("citusPorts").slice(1)) yield* sourceAhead(port, newPort, 20_000)
          })
        )
        yield* Effect.promise(() => addWorker(url, newPort))

        const rebalance = Effect.gen(function* () {
          // block_writes: the figures' delta table has no primary key, which logical moves need.
          yield* query(coordinator, "SELECT citus_rebalance_start(shard_transfer_mode => 'block_writes')")
          yield* query(coordinator, "SELECT citus_rebalance_wait()")
        })
        const traffic = yield* trafficAcrossMove({
          hosts,
          coordinator,
          workspaces,
          tag,
          writers: WRITERS,
          commitsAfterMove: COMMITS_AFTER_MOVE,
          seenBeforeMove: SEEN_BEFORE_MOVE,
          move: rebalance
        })

        // The job finished, and the new worker holds shard groups of these workspaces.
        const [job] = yield* query<{ readonly state: string }>(coordinator, "SELECT state::text FROM citus_rebalance_status()")
        expect(job!.state).toBe("finished")
        const onNew: Array<string> = []
        for (const workspace of workspaces) {
          if ((yield* placement(coordinator, workspace)).source === newPort) onNew.push(workspace)
        }
        expect(onNew.length).toBeGreaterThan(0)

        for (const t of traffic.workspaces) {
          expect(t.acknowledged.length, t.workspace).toBeGreaterThan(2 * WRITERS * COMMITS_AFTER_MOVE)
          expectEachOnceInOrder(t)
        }

        // A workspace on the new worker goes on: a commit, and a follower from the last position it saw.
        const moved = traffic.workspaces.find((t) => t.workspace === onNew[0])!
        const stream = `con_${tag}_after`
        yield* hosts[0].commit({
          streams: [{ streamId: stream, expectedVersion: 0, events: [trafficEvent(moved.workspace, stream, 1)] }],
          documents: []
        })
        const next = yield* readUntil(
          hosts[1].readFeed({ workspaceId: moved.workspace, after: moved.seen.at(-1)!.position, types: [], limit: 100 }),
          (page) => page.events.length > 0,
          "the commit after the rebalance"
        )
        expect(next.events.map((e) => e.metadata.eventId)).toEqual([`evt_${stream}_1`])
        yield* Effect.logInfo(
          `rebalanced ${onNew.length} of ${workspaces.length} workspaces onto the new worker, ${traffic.inFlight} commits in flight as it began, ${traffic.failed} refused`
        )
      }).pipe(Effect.scoped),
    240_000
  )
})
