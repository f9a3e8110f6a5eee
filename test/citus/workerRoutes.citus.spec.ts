import type { StorageService } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { citusDatabase } from "../support/citusDatabase.js"
import { connect, nodeUrl, placement, query } from "../support/citusShards.js"
import { trafficEvent } from "../support/citusTraffic.js"
import { readUntil } from "../support/feedPolling.js"

// Issue 31: a host sends a workspace's commits and feed bounds straight to the worker holding it
// (packages/storage-pg/src/citusWorkers.ts), not through the coordinator. Shown by taking away the
// coordinator's delegation of both functions: a call sent through it then runs on the coordinator,
// which refuses it (ds_workspace_here), so only a host that goes to the worker commits and reads.

describe("a workspace's delegated calls go straight to its worker", () => {
  it.live(
    "commits and follows the feed while the coordinator cannot delegate either call; a call through it is refused",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const host: StorageService = yield* PgStorage.make(url)
        const coordinator = yield* connect(url)
        const tag = Date.now().toString(36)
        const workspace = `ws_direct_${tag}`
        const stream = `con_${tag}`
        // Citus delegates a call by its distribution argument; without one the coordinator runs it.
        yield* query(
          coordinator,
          `UPDATE pg_catalog.pg_dist_object SET distribution_argument_index = NULL, colocationid = NULL
           WHERE classid = 'pg_proc'::regclass AND objid IN ('ds_commit_batch_in'::regproc, 'ds_feed_bound_in'::regproc)`
        )
        const through = yield* Effect.exit(query(coordinator, "SELECT ds_feed_bound_in($1)", [workspace]))
        expect(Exit.isFailure(through)).toBe(true)

        for (let version = 1; version <= 3; version++) {
          yield* host.commit({
            streams: [{ streamId: stream, expectedVersion: version - 1, events: [trafficEvent(workspace, stream, version)] }],
            documents: []
          })
        }
        const page = yield* readUntil(
          host.readFeed({ workspaceId: workspace, after: null, types: [], limit: 10 }),
          (p) => p.events.length === 3,
          "the three events"
        )
        expect(page.events.map((e) => e.data["version"])).toEqual([1, 2, 3])

        // The host's pool to the worker is the one it came through: named, on that worker alone.
        const where = yield* placement(coordinator, workspace)
        const database = new URL(url).pathname.slice(1)
        const pooled = (port: number) =>
          Effect.flatMap(connect(nodeUrl(port, database)), (worker) =>
            Effect.map(
              query<{ readonly n: number }>(
                worker,
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'dealstream worker'",
                [database]
              ),
              ([row]) => row!.n
            )
          )
        expect(yield* pooled(where.source)).toBeGreaterThan(0)
        expect(yield* pooled(where.target)).toBe(0)
      }).pipe(Effect.scoped),
    120_000
  )
})
