import {
  type ChangeFeedEvent,
  type ChangeFeedPosition,
  compareChangeFeedPositions,
  type NewEvent,
  type StorageService,
  type StorageUnavailable
} from "@dealstream/core"
import { expect } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import type pg from "pg"
import { query } from "./citusShards.js"
import { FEED_PORT_READS, feedPause } from "./feedPolling.js"

// Hosts writing to workspaces and a follower reading each one's feed while their shards move
// (test/citus/shardMove and rebalance): what was acknowledged, what the log holds, what was seen.

export const trafficEvent = (workspaceId: string, stream: string, version: number): NewEvent => ({
  type: "contact.updated",
  data: { stream, version },
  metadata: { workspaceId, eventId: `evt_${stream}_${version}`, requestId: null, actor: null }
})

/** Every event of the workspace's log, by event id, with how many times each is there. */
export const logOf = (coordinator: pg.Client, workspace: string) =>
  Effect.map(
    query<{ readonly id: string; readonly copies: number }>(
      coordinator,
      `SELECT metadata ->> 'eventId' AS id, count(*)::int AS copies FROM ds_events WHERE workspace_id = $1 GROUP BY 1`,
      [workspace]
    ),
    (rows) => new Map(rows.map((row) => [row.id, row.copies]))
  )

export interface Seen {
  readonly id: string
  readonly stream: string
  readonly version: number
  readonly position: ChangeFeedPosition
}

const seenOf = (e: ChangeFeedEvent): Seen => ({
  id: e.metadata.eventId,
  stream: String(e.data["stream"]),
  version: Number(e.data["version"]),
  position: e.position
})

export interface TrafficOptions {
  readonly hosts: readonly [StorageService, StorageService]
  readonly coordinator: pg.Client
  readonly workspaces: ReadonlyArray<string>
  /** Names the streams apart from other runs'. */
  readonly tag: string
  /** Writers per host and workspace. */
  readonly writers: number
  /** Commits each writer makes once the move is done. */
  readonly commitsAfterMove: number
  /** Events every workspace's follower has seen before the move starts. */
  readonly seenBeforeMove: number
  /** The move, run once while the writers write. */
  readonly move: Effect.Effect<unknown>
}

export interface WorkspaceTraffic {
  readonly workspace: string
  readonly acknowledged: ReadonlyArray<string>
  readonly seen: ReadonlyArray<Seen>
  /** The log once everything ended: event id → copies. */
  readonly log: ReadonlyMap<string, number>
}

export interface Traffic {
  readonly workspaces: ReadonlyArray<WorkspaceTraffic>
  /** Commits that were not acknowledged (refused or cut off by the move). */
  readonly failed: number
  /** Commits under way as the move began. */
  readonly inFlight: number
}

/**
 * Runs `writers` writers per host on every workspace, each committing one or two events at a time
 * to a stream of its own, and one follower per workspace reading its feed from the start with
 * varying page sizes through both hosts. Once every follower has seen `seenBeforeMove` events the
 * move runs; each writer then makes `commitsAfterMove` more commits, and the followers read to the
 * end of the log.
 */
export const trafficAcrossMove = (options: TrafficOptions): Effect.Effect<Traffic, StorageUnavailable> =>
  Effect.gen(function* () {
    const { coordinator, hosts } = options
    let failed = 0
    let committing = 0
    let inFlight = 0
    let moved = false
    let writing = true
    const readyAll = yield* Effect.forEach(options.workspaces, () => Deferred.make<void>())

    const writer = (workspace: string, acknowledged: Array<string>, w: number) =>
      Effect.gen(function* () {
        const host = hosts[w % 2]!
        const stream = `con_${options.tag}_${workspace}_${w}`
        let version = 0
        let afterMove = 0
        while (afterMove < options.commitsAfterMove) {
          const wasMoved = moved
          const size = 1 + (version % 2)
          const events = Array.from({ length: size }, (_, i) => trafficEvent(workspace, stream, version + i + 1))
          committing++
          const exit = yield* Effect.exit(host.commit({ streams: [{ streamId: stream, expectedVersion: version, events }], documents: [] }))
          committing--
          if (exit._tag === "Success") {
            acknowledged.push(...events.map((e) => e.metadata.eventId))
            version += size
          } else {
            // Not acknowledged: it may or may not be stored. The log says where the stream is.
            failed++
            const [row] = yield* query<{ readonly version: number }>(
              coordinator,
              `SELECT coalesce(max(stream_version), 0)::int AS version FROM ds_events WHERE workspace_id = $1 AND stream_id = $2`,
              [workspace, stream]
            )
            version = row!.version
          }
          if (wasMoved) afterMove++
        }
      })

    const follower = (workspace: string, seen: Array<Seen>, ready: Deferred.Deferred<void>) =>
      Effect.gen(function* () {
        let after: ChangeFeedPosition | null = null
        let total: number | null = null
        for (let i = 0, idle = 0; ; i++) {
          const finished = !writing
          const { events }: { readonly events: ReadonlyArray<ChangeFeedEvent> } = yield* hosts[i % 2]!.readFeed({
            workspaceId: workspace,
            after,
            types: [],
            limit: [7, 1, 50, 3][i % 4]!
          })
          for (const e of events) {
            seen.push(seenOf(e))
            after = e.position
          }
          if (seen.length >= options.seenBeforeMove) yield* Deferred.succeed(ready, undefined)
          if (finished) {
            total ??= (yield* logOf(coordinator, workspace)).size
            if (seen.length >= total) return
            idle = events.length === 0 ? idle + 1 : 0
            if (idle >= FEED_PORT_READS)
              return yield* Effect.die(new Error(`${workspace}'s follower stalled at ${seen.length} of ${total} events`))
          }
          // Pacing while nothing is new, not waiting for anything.
          if (events.length === 0) yield* Effect.sleep(feedPause(Math.max(1, idle)))
        }
      })

    const moving = Effect.gen(function* () {
      yield* Effect.forEach(readyAll, Deferred.await, { discard: true })
      inFlight = committing
      yield* options.move
      moved = true
    })

    const traffic = options.workspaces.map((workspace) => ({ workspace, acknowledged: [] as Array<string>, seen: [] as Array<Seen> }))
    const writers = traffic.flatMap(({ acknowledged, workspace }) =>
      [...Array(2 * options.writers).keys()].map((w) => writer(workspace, acknowledged, w))
    )
    yield* Effect.all(
      [
        Effect.ensuring(
          Effect.all([Effect.all(writers, { concurrency: "unbounded", discard: true }), moving], {
            concurrency: "unbounded",
            discard: true
          }),
          Effect.sync(() => {
            writing = false
          })
        ),
        ...traffic.map(({ seen, workspace }, i) => follower(workspace, seen, readyAll[i]!))
      ],
      { concurrency: "unbounded", discard: true }
    )
    const workspaces = yield* Effect.forEach(traffic, (t) => Effect.map(logOf(coordinator, t.workspace), (log) => ({ ...t, log })))
    return { workspaces, failed, inFlight }
  })

/**
 * Every acknowledged event is stored once and nothing twice; the follower saw every stored event
 * once, in feed order, each stream in version order.
 */
export const expectEachOnceInOrder = ({ acknowledged, log, seen, workspace }: WorkspaceTraffic) => {
  expect(
    acknowledged.filter((id) => log.get(id) !== 1),
    workspace
  ).toEqual([])
  expect(
    [...log.values()].filter((copies) => copies !== 1),
    workspace
  ).toEqual([])
  expect(new Set(seen.map((e) => e.id)).size, workspace).toBe(seen.length)
  expect(seen.map((e) => e.id).sort(), workspace).toEqual([...log.keys()].sort())
  for (let i = 1; i < seen.length; i++) {
    expect(compareChangeFeedPositions(seen[i - 1]!.position, seen[i]!.position), `${workspace}: feed order at ${i}`).toBeLessThan(0)
  }
  const last = new Map<string, number>()
  for (const e of seen) {
    expect(e.version, `${e.stream} in version order`).toBe((last.get(e.stream) ?? 0) + 1)
    last.set(e.stream, e.version)
  }
}
