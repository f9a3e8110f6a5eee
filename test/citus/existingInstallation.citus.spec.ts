import type { ChangeFeedPosition, StorageService } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { inject } from "vitest"
import { dropCitusDatabase, makeCitus, plainDatabaseOn } from "../support/citusCluster.js"
import { burnIds } from "../support/citusShards.js"
import { rowsOn } from "../support/citusTransactions.js"

// Issue 31, item 6: an installation on one server moves to a cluster without losing an event. Its
// server becomes the coordinator (Citus installed, the workers added), and the next migrate
// distributes the tables with their rows. Its events keep the transaction ids of the single
// server, which are moved here well past the workers' own: a follower's cursor taken before the
// move must still see every event committed on the workers after it.

const ports = () => inject("citusPorts")

const event = (workspaceId: string, n: number) => ({
  type: "contact.updated",
  data: { n },
  metadata: { workspaceId, eventId: `evt_${workspaceId}_${n}`, requestId: null, actor: null }
})

const commitAll = (storage: StorageService, workspaces: ReadonlyArray<string>, from: number, to: number) =>
  Effect.forEach(workspaces, (ws) =>
    Effect.forEach(
      Array.from({ length: to - from + 1 }, (_, i) => from + i),
      (n) => storage.commit({ streams: [{ streamId: `con_${ws}`, expectedVersion: n - 1, events: [event(ws, n)] }], documents: [] }),
      { discard: true }
    )
  )

/** Every event of the workspace's feed after `after`, page by page, and the cursor past them. */
const feedAfter = (storage: StorageService, workspaceId: string, after: ChangeFeedPosition | null) =>
  Effect.gen(function* () {
    const seen: Array<number> = []
    let cursor = after
    for (;;) {
      const page = yield* storage.readFeed({ workspaceId, after: cursor, types: [], limit: 2 })
      seen.push(...page.events.map((e) => e.data["n"] as number))
      if (page.events.length === 0) return { seen, cursor }
      cursor = page.through
    }
  })

describe("an installation on one server, distributed onto a cluster", () => {
  it.live(
    "keeps every event, and a cursor taken before the move sees every event after it",
    () =>
      Effect.gen(function* () {
        const url = yield* Effect.acquireRelease(
          Effect.promise(() => plainDatabaseOn(ports())),
          (made) => Effect.promise(() => dropCitusDatabase(ports(), made))
        )
        const workspaces = Array.from({ length: 8 }, (_, i) => `ws_moved_${Date.now().toString(36)}_${i}`)
        // The single server has lived a while: its transaction ids are well past the workers'.
        yield* burnIds(ports()[0]!, 2_000)
        const cursors = yield* Effect.scoped(
          Effect.gen(function* () {
            const single = yield* PgStorage.make(url)
            yield* commitAll(single, workspaces, 1, 3)
            return yield* Effect.forEach(workspaces, (ws) => feedAfter(single, ws, null))
          })
        )
        expect(cursors.map((c) => c.seen)).toEqual(workspaces.map(() => [1, 2, 3]))

        yield* Effect.promise(() => makeCitus(ports(), url))
        const storage = yield* PgStorage.make(url) // migrate distributes the tables, rows and all
        const [distributed] = yield* Effect.promise(() =>
          rowsOn<{ readonly n: number }>(url, "SELECT count(*)::int AS n FROM pg_dist_partition WHERE logicalrelid = 'ds_events'::regclass")
        )
        expect(distributed!.n).toBe(1)
        // Before any commit on the cluster the feed shows the installation's events, and nothing
        // after a cursor taken before (each worker's bound there is the highest key stored).
        for (const [i, ws] of workspaces.entries()) {
          expect((yield* feedAfter(storage, ws, null)).seen).toEqual([1, 2, 3])
          expect((yield* feedAfter(storage, ws, cursors[i]!.cursor)).seen).toEqual([])
        }
        yield* commitAll(storage, workspaces, 4, 6)
        for (const [i, ws] of workspaces.entries()) {
          expect((yield* storage.readStream(`con_${ws}`, 0, ws)).map((e) => e.data["n"])).toEqual([1, 2, 3, 4, 5, 6])
          expect((yield* feedAfter(storage, ws, cursors[i]!.cursor)).seen, `${ws} after its cursor`).toEqual([4, 5, 6])
          expect((yield* feedAfter(storage, ws, null)).seen).toEqual([1, 2, 3, 4, 5, 6])
        }
      }).pipe(Effect.scoped),
    120_000
  )
})
