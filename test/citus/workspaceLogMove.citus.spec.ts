import { type ChangeFeedEvent, type ChangeFeedPosition, compareChangeFeedPositions, type StorageService } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import type pg from "pg"
import { deliveriesOf, finished, runner } from "../engine/webhookRecovery.js"
import { citusDatabase } from "../support/citusDatabase.js"
import { connect, groupOf, move, placement, query, sourceAhead, workerIdsHeld } from "../support/citusShards.js"
import { acceptingTargets, ctxOf, engineOver } from "../support/engine.js"
import { expectEachOnceInOrder, trafficAcrossMove, trafficEvent, type WorkspaceTraffic } from "../support/citusTraffic.js"

// Issue 31: a workspace's log as recovery runners and as-of reads walk it (readWorkspaceLog, up to
// workspaceHead) when the workspace's shards move to another worker. Each worker hands out
// sequences from its own range (its Citus group id shifted left by 48 bits), so a workspace moved
// to a worker of a lower group goes on below its old sequences. The walk follows the change feed's
// key instead, which the workspace's feed offset lifts above every key stored at the first commit on
// the new worker (packages/storage-pg/src/internal/feedOffset.ts).
//
// Checked against the code before: with readWorkspaceLog and workspaceHead ordering by sequence
// again (the statement below, `bySequence`, behind the same positions) and as-of reads folding each
// deal in the walk's order, every test here failed on 2026-11-28: the walk from the start handed the
// target's events out first (112 events, not in the feed's order), the head did not move past the
// source's last event, so a walk going on after it found none of the target's, and the contact a
// deal was moved off on the target still showed the deal as of now. The last test keeps the walk
// by sequence as the planted bug.

/** The walk before it followed the feed (readWorkspaceLog.ts until issue 31's last item), kept as the planted bug. */
const bySequence = (coordinator: pg.Client, workspace: string, after: number, until: number, limit: number) =>
  query<{ readonly id: string; readonly sequence: string }>(
    coordinator,
    `SELECT metadata ->> 'eventId' AS id, sequence::text AS sequence FROM ds_events
     WHERE workspace_id = $1 AND sequence > $2::bigint AND sequence <= $3::bigint ORDER BY sequence LIMIT $4::int`,
    [workspace, String(after), String(until), limit]
  )

/** The workspace's log in pages of `size` after `after` up to `until`, as a recovery runner walks it. */
const walk = (storage: StorageService, workspaceId: string, after: ChangeFeedPosition | null, until: ChangeFeedPosition, size: number) =>
  Effect.gen(function* () {
    const out: Array<ChangeFeedEvent> = []
    for (let from = after; ; ) {
      const page: ReadonlyArray<ChangeFeedEvent> = yield* storage.readWorkspaceLog({ workspaceId, after: from, until, limit: size })
      out.push(...page)
      if (page.length < size) return out
      from = page[page.length - 1]!.position
    }
  })

const ids = (events: ReadonlyArray<ChangeFeedEvent>) => events.map((e) => e.metadata.eventId)

/**
 * A workspace whose shard group is on the worker of the higher group id, and that worker's
 * transaction ids run far past the other's: moving it to the other worker lowers both its
 * sequences and its raw transaction ids.
 */
const onHigherGroup = (coordinator: pg.Client, mover: pg.Client, workspace: string) =>
  Effect.gen(function* () {
    let where = yield* placement(coordinator, workspace)
    if ((yield* groupOf(coordinator, where.source)) < (yield* groupOf(coordinator, where.target))) {
      yield* move(mover, where)
      where = { shard: where.shard, source: where.target, target: where.source }
    }
    yield* workerIdsHeld
    yield* sourceAhead(where.source, where.target, 20_000)
    return where
  })

/**
 * A host, and one stream of a new workspace whose shards sit on the higher group's worker
 * (onHigherGroup below), written by `commit` one event a version.
 */
const streamOnHigherGroup = (prefix: string) =>
  Effect.gen(function* () {
    const url = yield* citusDatabase
    const host = yield* PgStorage.make(url)
    const coordinator = yield* connect(url)
    const tag = Date.now().toString(36)
    const workspace = `${prefix}_${tag}`
    const where = yield* onHigherGroup(coordinator, coordinator, workspace)
    const stream = `con_${tag}`
    const commit = (version: number) =>
      host.commit({
        streams: [{ streamId: stream, expectedVersion: version - 1, events: [trafficEvent(workspace, stream, version)] }],
        documents: []
      })
    return { commit, coordinator, host, stream, where, workspace }
  })

describe("a workspace's log walked across a move of its shards to another worker", () => {
  it.live(
    "while hosts write and the shards move, every event is in the walk once, in the feed's order, with the feed's positions",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const hosts: readonly [StorageService, StorageService] = [yield* PgStorage.make(url), yield* PgStorage.make(url)]
        const coordinator = yield* connect(url)
        const mover = yield* connect(url)
        const tag = Date.now().toString(36)
        const workspace = `ws_logmove_${tag}`
        const where = yield* onHigherGroup(coordinator, mover, workspace)

        const traffic = yield* trafficAcrossMove({
          hosts,
          coordinator,
          workspaces: [workspace],
          tag,
          writers: 2,
          commitsAfterMove: 6,
          seenBeforeMove: 20,
          move: move(mover, where)
        })
        const moved = traffic.workspaces[0] as WorkspaceTraffic
        expectEachOnceInOrder(moved)
        expect((yield* placement(coordinator, workspace)).source).toBe(where.target)

        // The sequences did go down: the target's range is below the source's.
        const [range] = yield* query<{ readonly low: string; readonly high: string }>(
          coordinator,
          `SELECT min(sequence)::text AS low, max(sequence)::text AS high FROM ds_events WHERE workspace_id = $1`,
          [workspace]
        )
        expect(BigInt(range!.high) - BigInt(range!.low)).toBeGreaterThan(2n ** 47n)

        // A walk to the head, in pages of several sizes through both hosts: every stored event once,
        // in the order and at the positions the feed's follower saw them.
        const head = yield* hosts[1].workspaceHead(workspace)
        for (const [size, host] of [
          [7, hosts[0]],
          [1_000, hosts[1]]
        ] as const) {
          const walked = yield* walk(host, workspace, null, head!, size)
          expect(walked.length).toBe(moved.log.size)
          expect(ids(walked)).toEqual(moved.seen.map((e) => e.id))
          expect(walked.map((e) => e.position)).toEqual(moved.seen.map((e) => e.position))
        }
        expect(head).toEqual(moved.seen.at(-1)!.position)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "a walk fixed before the move goes on after it to its head, and the next one from there finds the target's events",
    () =>
      Effect.gen(function* () {
        const { commit, coordinator, host, stream, where, workspace } = yield* streamOnHigherGroup("ws_logwalk")
        const eventIds = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `evt_${stream}_${from + i}`)

        for (let version = 1; version <= 10; version++) yield* commit(version)
        // A runner fixes its head and walks part of the way (chunks of 4) before the move.
        const until = (yield* host.workspaceHead(workspace))!
        const first = yield* host.readWorkspaceLog({ workspaceId: workspace, after: null, until, limit: 4 })
        expect(ids(first)).toEqual(eventIds(1, 4))

        yield* move(coordinator, where)
        for (let version = 11; version <= 15; version++) yield* commit(version)
        const offset = yield* query<{ readonly server: number }>(
          coordinator,
          "SELECT server FROM ds_feed_offsets WHERE workspace_id = $1",
          [workspace]
        )
        expect(offset[0]?.server).toBe(yield* groupOf(coordinator, where.target))

        // It goes on to its head: the rest of the source's events, none of the target's.
        const rest = yield* walk(host, workspace, first.at(-1)!.position, until, 4)
        expect(ids(rest)).toEqual(eventIds(5, 10))
        // The next walk, from there to the new head, finds each of the target's, in order.
        const head = (yield* host.workspaceHead(workspace))!
        expect(compareChangeFeedPositions(head, until)).toBeGreaterThan(0)
        const next = yield* walk(host, workspace, until, head, 4)
        expect(ids(next)).toEqual(eventIds(11, 15))
        // From the start, each once, in version order.
        expect(ids(yield* walk(host, workspace, null, head, 3))).toEqual(eventIds(1, 15))
      }).pipe(Effect.scoped),
    120_000
  )

  it.effect(
    "after the move a recovery schedules each event of both workers once, and an as-of read folds each deal in order",
    () =>
      Effect.gen(function* () {
        const url = yield* citusDatabase
        const { queue, storage } = yield* PgStorage.makeWithQueue(url)
        const coordinator = yield* connect(url)
        const ctx = ctxOf(`ws_logrecover_${Date.now().toString(36)}`)
        const where = yield* onHigherGroup(coordinator, coordinator, ctx.workspaceId)
        yield* TestClock.setTime(Date.parse("2026-03-01T00:00:00.000Z"))
        const engine = yield* engineOver({ storage, queue }, { webhooks: acceptingTargets })
        const since = new Date(yield* Clock.currentTimeMillis).toISOString()
        const contact = (email: string) => Effect.map(engine.contacts.create(ctx, { email }), (c) => String(c.data["id"]))
        const onSource = yield* Effect.forEach(["a", "b", "c", "d", "e"], (name) => contact(`${name}@source.io`))
        const pipeline = (yield* engine.pipelines.list(ctx)).data[0]!["id"]
        const deal = String(
          (yield* engine.deals.create(ctx, { name: "Moved", pipeline_id: pipeline, contact_ids: [onSource[0]!] })).data["id"]
        )
        yield* TestClock.adjust(60_000)
        const beforeMove = new Date(yield* Clock.currentTimeMillis).toISOString()
        yield* TestClock.adjust(60_000)

        yield* move(coordinator, where)
        const onTarget = yield* Effect.forEach(["f", "g", "h"], (name) => contact(`${name}@target.io`))
        yield* engine.deals.update(ctx, deal, { contact_ids: [onTarget[0]!] }, null)
        const now = new Date(yield* Clock.currentTimeMillis).toISOString()

        // The deal's creation (source) and its update (target) fold in that order.
        expect((yield* engine.contacts.getAsOf(ctx, onSource[0]!, now)).data["deal_ids"]).toEqual([])
        expect((yield* engine.contacts.getAsOf(ctx, onTarget[0]!, now)).data["deal_ids"]).toEqual([deal])
        expect((yield* engine.contacts.getAsOf(ctx, onSource[0]!, beforeMove)).data["deal_ids"]).toEqual([deal])

        // A webhook registered now, recovered from the start in chunks of 2: every creation once.
        const webhook = String(
          (yield* engine.webhooks.create(ctx, { url: "https://hooks.example/in", events: ["contact.created"] })).data["id"]
        )
        const job = (yield* engine.webhooks.recover(ctx, webhook, { since })).data
        yield* Effect.forkScoped(runner(storage, queue, "host-a", { chunk: 2 }))
        const done = yield* finished(engine, ctx, webhook, String(job["id"]))
        expect(done).toMatchObject({ status: "done", scheduled: 8, skipped: 0 })
        const deliveries = (yield* deliveriesOf(storage, ctx, webhook)).map((d) => d.data)
        expect(deliveries.map((d) => d["event_stream_id"]).sort()).toEqual([...onSource, ...onTarget].sort())
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.live(
    "the planted bug: walked by sequence, the target's events come first from the start, and after the old head never",
    () =>
      Effect.gen(function* () {
        const { commit, coordinator, host, stream, where, workspace } = yield* streamOnHigherGroup("ws_logseq")
        for (let version = 1; version <= 3; version++) yield* commit(version)
        const [{ head } = { head: "0" }] = yield* query<{ readonly head: string }>(
          coordinator,
          "SELECT max(sequence)::text AS head FROM ds_events WHERE workspace_id = $1",
          [workspace]
        )
        yield* move(coordinator, where)
        for (let version = 4; version <= 6; version++) yield* commit(version)

        const all = Number.MAX_SAFE_INTEGER
        const fromStart = yield* bySequence(coordinator, workspace, 0, all, 100)
        expect(fromStart.map((row) => row.id)).toEqual([4, 5, 6, 1, 2, 3].map((version) => `evt_${stream}_${version}`))
        expect(yield* bySequence(coordinator, workspace, Number(head), all, 100)).toEqual([])
        // The feed's order holds.
        const walked = yield* walk(host, workspace, null, (yield* host.workspaceHead(workspace))!, 100)
        expect(ids(walked)).toEqual([1, 2, 3, 4, 5, 6].map((version) => `evt_${stream}_${version}`))
      }).pipe(Effect.scoped),
    120_000
  )
})
