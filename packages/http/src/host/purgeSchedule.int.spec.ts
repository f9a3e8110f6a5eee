import {
  Engine,
  EngineLive,
  type EngineService,
  IdsLive,
  type RequestContext,
  StorageUnavailable,
  WebhookConfig,
  WebhookTransport,
  WebhookTransportUnavailable
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, Queue } from "effect"
import { TestClock } from "effect/testing"
import { purgeSchedule } from "./purgeSchedule.js"

const engineLayer = EngineLive.pipe(
  Layer.provide(MemoryStorage.layer),
  Layer.provide(IdsLive),
  Layer.provide(Layer.merge(WebhookConfig.layer(), Layer.succeed(WebhookTransport, WebhookTransportUnavailable)))
)

const ws: RequestContext = { workspaceId: "acme", requestId: null, actor: "test" }
const HOUR = 3_600_000
const DAYS_30 = 30 * 24 * HOUR
/** When the host starts in these tests. */
const START = Date.parse("2026-03-01T12:00:00.000Z")

interface Run {
  readonly at: number
  readonly purged: number
}

/**
 * The engine the schedule gets, reporting each purge run (its engine time and count) when it ends,
 * so the test waits for runs instead of for time. `failFirst` makes the first run fail as an
 * unreachable storage would.
 */
const observed = (engine: EngineService, runs: Queue.Queue<Run>, failFirst = false): EngineService => {
  let calls = 0
  return {
    ...engine,
    purgeExpired: Effect.suspend(() =>
      failFirst && calls++ === 0 ? Effect.fail(new StorageUnavailable({ message: "storage down" })) : engine.purgeExpired
    ).pipe(
      Effect.tap((purged) => Effect.flatMap(Clock.currentTimeMillis, (at) => Queue.offer(runs, { at, purged }))),
      Effect.tapError(() => Effect.flatMap(Clock.currentTimeMillis, (at) => Queue.offer(runs, { at, purged: -1 })))
    )
  }
}

/** A contact deleted at `deletedAt` (engine time), left in the trash. */
const deletedContact = (engine: EngineService, email: string, deletedAt: number) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(deletedAt)
    const id = (yield* engine.contacts.create(ws, { email })).data["id"] as string
    yield* engine.contacts.delete(ws, id, null)
    return id
  })

const trash = (engine: EngineService) =>
  Effect.map(engine.trash.list(ws, { type: "contact" }), (page) => page.data.map((item) => item["id"]).sort())

describe("purge schedule", () => {
  it.effect("purges what is 30 days + ε old at start and then every hour, and never in between", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      // Deleted 30 days and 1 ms before the start: purged by the run at start.
      const atStart = yield* deletedContact(engine, "start@x.io", START - DAYS_30 - 1)
      // Deleted exactly 30 days before the start: still restorable then, purged by the run an hour later.
      const boundary = yield* deletedContact(engine, "boundary@x.io", START - DAYS_30)
      // Expires half an hour after the start: waits for the hourly run all the same.
      const midHour = yield* deletedContact(engine, "midhour@x.io", START - DAYS_30 + HOUR / 2)
      // Expires 1 ms after the first hourly run: left for the second.
      const nextHour = yield* deletedContact(engine, "nexthour@x.io", START - DAYS_30 + HOUR)
      expect(yield* trash(engine)).toEqual([atStart, boundary, midHour, nextHour].sort())

      yield* TestClock.setTime(START)
      const runs = yield* Queue.unbounded<Run>()
      yield* purgeSchedule.pipe(Effect.provideService(Engine, observed(engine, runs)))

      expect(yield* Queue.take(runs)).toEqual({ at: START, purged: 1 })
      expect(yield* trash(engine)).toEqual([boundary, midHour, nextHour].sort())

      // Just before the hour, midHour has been expired for half an hour, and is still in the trash.
      yield* TestClock.adjust(HOUR - 1)
      expect(yield* trash(engine)).toEqual([boundary, midHour, nextHour].sort())
      yield* TestClock.adjust(1)
      // The next run is the hourly one (a run in between would be taken here, with its own time).
      expect(yield* Queue.take(runs)).toEqual({ at: START + HOUR, purged: 2 })
      expect(yield* trash(engine)).toEqual([nextHour])

      yield* TestClock.adjust(HOUR)
      expect(yield* Queue.take(runs)).toEqual({ at: START + 2 * HOUR, purged: 1 })
      expect(yield* trash(engine)).toEqual([])
      expect(yield* Queue.size(runs)).toBe(0)
    }).pipe(Effect.scoped, Effect.provide(engineLayer))
  )

  it.effect("a failed run stops nothing: the next hour purges", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const expired = yield* deletedContact(engine, "expired@x.io", START - DAYS_30 - 1)

      yield* TestClock.setTime(START)
      const runs = yield* Queue.unbounded<Run>()
      yield* purgeSchedule.pipe(Effect.provideService(Engine, observed(engine, runs, true)))

      expect(yield* Queue.take(runs)).toEqual({ at: START, purged: -1 })
      expect(yield* trash(engine)).toEqual([expired])
      yield* TestClock.adjust(HOUR)
      expect(yield* Queue.take(runs)).toEqual({ at: START + HOUR, purged: 1 })
      expect(yield* trash(engine)).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(engineLayer))
  )
})
