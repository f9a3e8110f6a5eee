import { type ChangeFeedEvent, compareChangeFeedPositions, type StorageService } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { feedBoundOnCitus, readBelow } from "../../packages/storage-pg/src/citusFeed.js"
import { throughCoordinator } from "../../packages/storage-pg/src/citusWorkers.js"
import { paramsOf } from "../../packages/storage-pg/src/commit.js"
import { workspaceWriters } from "../../packages/storage-pg/src/feedBound.js"
import { readFeed } from "../../packages/storage-pg/src/readFeed.js"
import { citusDatabase } from "../support/citusDatabase.js"
import { burnIds, connect, groupOf, move, nodeUrl, offsetOf, placement, query, sourceAhead, workerIdsHeld } from "../support/citusShards.js"
import { expectEachOnceInOrder, trafficAcrossMove, trafficEvent, type WorkspaceTraffic } from "../support/citusTraffic.js"
import { readUntil } from "../support/feedPolling.js"

// Issue 31, item 4: a busy workspace's shards move to the other worker while two hosts write to it
// and a follower reads its feed. The source worker's transaction ids are first moved far past the
// target's, so the target's commits would sort before every event written on the source: the case
// the feed's offset (packages/storage-pg/src/internal/feedOffset.ts) exists for.

/** Writers per host; commits each makes once the move is done. */
const WRITERS = 3
const COMMITS_AFTER_MOVE = 8
/** Events the follower has seen before the move starts. */
const SEEN_BEFORE_MOVE = 30

describe("moving a workspace's shards between workers while hosts serve it", () => {
  it.live(
    "every acknowledged event is in the log once, and a follower across the move sees each once, in feed order",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const hosts: readonly [StorageService, StorageService] = [yield* PgStorage.make(url), yield* PgStorage.make(url)]
        const coordinator = yield* connect(url)
        const mover = yield* connect(url)
        const tag = Date.now().toString(36)
        const workspace = `ws_move_${tag}`
        const where = yield* placement(coordinator, workspace)
        yield* workerIdsHeld
        yield* sourceAhead(where.source, where.target, 20_000)

        const traffic = yield* trafficAcrossMove({
          hosts,
          coordinator,
          workspaces: [workspace],
          tag,
          writers: WRITERS,
          commitsAfterMove: COMMITS_AFTER_MOVE,
          seenBeforeMove: SEEN_BEFORE_MOVE,
          move: move(mover, where)
        })
        const [{ acknowledged, log }] = traffic.workspaces as [WorkspaceTraffic]

        // The shards moved, and the target's first commit lifted the workspace's keys above the source's.
        expect((yield* placement(coordinator, workspace)).source).toBe(where.target)
        const target = yield* offsetOf(coordinator, workspace)
        expect(target.server).toBe(yield* groupOf(coordinator, where.target))
        expect(target.offset).toBeGreaterThan(0n)

        // Every acknowledged event is stored once; the follower saw each once, in order.
        expect(acknowledged.length).toBeGreaterThan(2 * WRITERS * COMMITS_AFTER_MOVE)
        expectEachOnceInOrder(traffic.workspaces[0]!)

        // The same hosts go on serving the workspace: a commit and a read from the start.
        const stream = `con_${tag}_after`
        yield* hosts[0].commit({
          streams: [{ streamId: stream, expectedVersion: 0, events: [trafficEvent(workspace, stream, 1)] }],
          documents: []
        })
        const page = yield* readUntil(
          hosts[1].readFeed({ workspaceId: workspace, after: null, types: [], limit: 10_000 }),
          (p) => p.events.length === log.size + 1,
          `all ${log.size + 1} events from the start`
        )
        expect(page.events.at(-1)!.metadata.eventId).toBe(`evt_${stream}_1`)

        // And back to the source, whose ids are far ahead: its first commit takes the offset over,
        // never lowering it, and a follower from where it was sees just the new events.
        yield* move(mover, { shard: where.shard, source: where.target, target: where.source })
        const back = `con_${tag}_back`
        for (let version = 1; version <= 3; version++) {
          yield* hosts[version % 2]!.commit({
            streams: [{ streamId: back, expectedVersion: version - 1, events: [trafficEvent(workspace, back, version)] }],
            documents: []
          })
        }
        const source = yield* offsetOf(coordinator, workspace)
        expect(source.server).toBe(yield* groupOf(coordinator, where.source))
        expect(source.offset).toBeGreaterThanOrEqual(target.offset)
        const followed = yield* readUntil(
          hosts[0].readFeed({ workspaceId: workspace, after: page.events.at(-1)!.position, types: [], limit: 100 }),
          (p) => p.events.length >= 3,
          "the three events written after moving back"
        )
        expect(followed.events.map((e) => e.metadata.eventId)).toEqual([1, 2, 3].map((version) => `evt_${back}_${version}`))
        yield* Effect.logInfo(
          `moved with ${acknowledged.length} events acknowledged, ${traffic.inFlight} commits in flight as the move began, ${traffic.failed} refused`
        )
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "the planted bug: keyed by the worker's raw ids, the target's events sort before a follower's position and it never sees them",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const host = yield* PgStorage.make(url)
        const coordinator = yield* connect(url)
        // The commit and the bound as they were before the offset: no offset, the worker's own ids.
        // Each still refuses to run off its workspace's worker, so the host finds the new one after
        // the move, as with the real functions (a call sent to a worker in the kept-plan form is
        // never delegated on from there).
        yield* query(
          coordinator,
          `CREATE OR REPLACE FUNCTION ds_commit_batch_in(workspace text, items jsonb)
           RETURNS jsonb LANGUAGE plpgsql AS $in$
           BEGIN PERFORM ds_workspace_here(workspace); RETURN ds_commit_batch(items); END $in$`
        )
        yield* query(
          coordinator,
          `CREATE OR REPLACE FUNCTION ds_feed_bound_in(workspace text)
           RETURNS jsonb LANGUAGE plpgsql AS $in$
           DECLARE answer jsonb;
           BEGIN
             PERFORM ds_workspace_here(workspace);
             WITH ${workspaceWriters("workspace")}
             SELECT jsonb_build_object('below', bound.below::text, 'ended', bound.ended, 'era', '') INTO answer FROM bound;
             RETURN answer;
           END $in$`
        )
        const tag = Date.now().toString(36)
        const workspace = `ws_planted_${tag}`
        const stream = `con_${tag}`
        const where = yield* placement(coordinator, workspace)
        yield* workerIdsHeld
        yield* sourceAhead(where.source, where.target, 20_000)
        const commit = (version: number) =>
          host.commit({
            streams: [{ streamId: stream, expectedVersion: version - 1, events: [trafficEvent(workspace, stream, version)] }],
            documents: []
          })
        for (let version = 1; version <= 3; version++) yield* commit(version)
        const before = yield* readUntil(
          host.readFeed({ workspaceId: workspace, after: null, types: [], limit: 100 }),
          (p) => p.events.length === 3,
          "the source's three events"
        )
        const position = before.events.at(-1)!.position

        yield* move(coordinator, where)
        for (let version = 4; version <= 6; version++) yield* commit(version)
        const fromStart = yield* readUntil(
          host.readFeed({ workspaceId: workspace, after: null, types: [], limit: 100 }),
          (p) => p.events.some((e) => e.metadata.eventId === `evt_${stream}_6`),
          "the target's events from the start"
        )
        const moved = fromStart.events.filter((e) => Number(e.data["version"]) >= 4)
        expect(moved.map((e) => e.data["version"])).toEqual([4, 5, 6])
        // Each sorts before where the follower already is: it will never be handed them.
        for (const e of moved) expect(compareChangeFeedPositions(e.position, position)).toBeLessThan(0)
        const { events } = yield* host.readFeed({ workspaceId: workspace, after: position, types: [], limit: 100 })
        expect(events.filter((e) => Number(e.data["version"]) >= 4)).toEqual([])
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "a bound taken on the worker the workspace left is not used once the next one commits; used anyway (the planted bug), a commit running there is missed",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const host = yield* PgStorage.make(url)
        const coordinator = yield* connect(url)
        const sql = yield* PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 })
        const tag = Date.now().toString(36)
        const workspace = `ws_era_${tag}`
        const [a, z, x, y] = ["a", "z", "x", "y"].map((name) => `con_${tag}_${name}`) as [string, string, string, string]
        const commitOf = (stream: string, version: number) => ({
          streams: [{ streamId: stream, expectedVersion: version - 1, events: [trafficEvent(workspace, stream, version)] }],
          documents: []
        })
        const ids = (events: ReadonlyArray<ChangeFeedEvent>) => events.map((e) => e.metadata.eventId)
        const fromStart = { workspaceId: workspace, after: null, types: [], limit: 100 } as const
        const where = yield* placement(coordinator, workspace)
        yield* workerIdsHeld
        yield* sourceAhead(where.source, where.target, 20_000)
        for (let version = 1; version <= 3; version++) yield* host.commit(commitOf(a, version))
        // The source's bound runs far past its last commit's key, as a busy server's would.
        yield* burnIds(where.source, 20_000)
        const stale = yield* feedBoundOnCitus(throughCoordinator(sql), workspace)
        expect(stale.era).toBe(`${yield* groupOf(coordinator, where.source)}:${(yield* offsetOf(coordinator, workspace)).offset}`)

        yield* move(coordinator, where)
        // Before its first commit the target's ids say nothing of the keys stored (all far above
        // them): the feed reads up to the highest one.
        const sourceEvents = [1, 2, 3].map((version) => `evt_${a}_${version}`)
        expect(ids((yield* host.readFeed(fromStart)).events)).toEqual(sourceEvents)
        yield* host.commit(commitOf(z, 1))
        // x: a commit on the target left running, its feed mark held; y commits after it.
        const worker = yield* connect(nodeUrl(where.target, new URL(url).pathname.slice(1)))
        yield* query(worker, "BEGIN")
        yield* query(worker, "SELECT ds_commit_batch_in($1, $2::jsonb)", [
          workspace,
          JSON.stringify([paramsOf(commitOf(x, 1), new Date().toISOString())])
        ])
        yield* host.commit(commitOf(y, 1))

        // The stale bound is refused where the page is read; the feed's own bound holds y back behind x.
        const refused = yield* readBelow(sql, stale)(fromStart)
        expect(refused.ended).toBe(true)
        expect(refused.page.events).toEqual([])
        const held = yield* host.readFeed(fromStart)
        expect(ids(held.events)).toEqual([...sourceEvents, `evt_${z}_1`])

        // The planted bug: the stale bound used anyway hands out y, past where x will land.
        const planted = readFeed(sql, () => `bound AS MATERIALIZED (SELECT '${stale.below}'::xid8 AS below, false AS ended)`)
        const early = yield* planted(fromStart)
        expect(ids(early.events).slice(-2)).toEqual([`evt_${z}_1`, `evt_${y}_1`])
        yield* query(worker, "COMMIT")
        const missed = yield* planted({ ...fromStart, after: early.events.at(-1)!.position })
        expect(ids(missed.events)).not.toContain(`evt_${x}_1`)
        expect(ids((yield* planted(fromStart)).events)).toContain(`evt_${x}_1`)

        // The storage's follower, from z on, gets x and then y.
        const followed = yield* readUntil(
          host.readFeed({ ...fromStart, after: held.events.at(-1)!.position }),
          (p) => p.events.length >= 2,
          "x and y after z"
        )
        expect(ids(followed.events)).toEqual([`evt_${x}_1`, `evt_${y}_1`])
      }).pipe(Effect.scoped, Effect.provide(Reactivity.layer)),
    120_000
  )
})
