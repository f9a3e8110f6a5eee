import type { EngineService } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { ctxOf, engineOver, servicesOf } from "../support/engine.js"
import { type FeedReadWatch, inLineBeforeAnswer, watchFeedReads } from "../support/feedWatch.js"

/** An engine of its own on a memory storage whose feed reads are watched. */
const withWatchedEngine = <A, E>(body: (engine: EngineService, watch: FeedReadWatch) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const services = servicesOf(yield* Layer.build(MemoryStorage.layer))
      const watch = watchFeedReads(services.storage)
      return yield* body(yield* engineOver({ storage: watch.storage, queue: services.queue }), watch)
    })
  )

/**
 * Until the forked read is in line to be woken; fails if it answers first. Only then may the test
 * act: a write or a stop that came before the read began would let it answer without waiting.
 */
const untilInLine = <A, E>(inLine: Promise<void>, reader: Fiber.Fiber<A, E>) =>
  Effect.promise(() => inLineBeforeAnswer(inLine, Effect.runPromise(Fiber.await(reader))))

/** Commits that may go unheard before the engine's listener hears one. */
const PROBES = 100

/**
 * Until the engine's listener hears commits. The first waiting read starts it on a fiber of its
 * own, so a commit made as soon as that read is in line may come before it listens, go unheard,
 * and leave the read to its next timed look. Commits to a workspace nobody reads, until one is
 * heard, rule that out.
 */
const untilListening = (engine: EngineService, watch: FeedReadWatch) =>
  Effect.gen(function* () {
    const probe = ctxOf("ws_probe")
    for (let n = 0; !watch.heard(probe.workspaceId); n++) {
      if (n === PROBES) return yield* Effect.die(new Error(`the engine's listener heard none of ${n} commits`))
      yield* engine.contacts.create(probe, { email: `probe.${n}@example.com` })
      yield* Effect.yieldNow
    }
  })

/** Reads of the change feed that wait: woken by a commit, and answered at once by a stopping host. */
describe("waiting reads of the change feed", () => {
  // On the TestClock, which no one moves: a waiting read's timed looks never come, so only the
  // commit's notification can wake it.
  it.effect("are woken by the commit of an event, and answer with it", () =>
    withWatchedEngine((engine, watch) =>
      Effect.gen(function* () {
        const ctx = ctxOf("ws_wait")
        const { next_cursor } = yield* engine.events.list(ctx, {})
        const inLine = watch.readerInLine(ctx.workspaceId)
        const waiting = yield* Effect.forkChild(engine.events.list(ctx, { after: next_cursor, wait: "30" }))
        yield* untilInLine(inLine, waiting)
        yield* untilListening(engine, watch)
        const created = yield* engine.contacts.create(ctx, { email: "woken@example.com" })
        const page = yield* TestClock.withLive(
          Effect.timeoutOrElse(Fiber.join(waiting), {
            duration: "10 seconds",
            orElse: () => Effect.die(new Error("the waiting read was not woken by the commit within 10 s"))
          })
        )
        expect(page.data.map((event) => (event["data"] as { contact: { id: string } }).contact.id)).toEqual([created.data["id"]])
      })
    )
  )

  it.effect("answer with their empty page once the host stops waiting, and later reads do not wait", () =>
    TestClock.withLive(
      withWatchedEngine((engine, watch) =>
        Effect.gen(function* () {
          const ctx = ctxOf("ws_stop")
          const { next_cursor } = yield* engine.events.list(ctx, {})
          const inLine = watch.readerInLine(ctx.workspaceId)
          const waiting = yield* Effect.forkChild(engine.events.list(ctx, { after: next_cursor, wait: "30" }))
          yield* untilInLine(inLine, waiting)
          yield* engine.events.stopWaiting
          expect(yield* Fiber.join(waiting)).toEqual({ data: [], next_cursor })
          expect(yield* engine.events.list(ctx, { after: next_cursor, wait: "30" })).toEqual({ data: [], next_cursor })
        })
      )
    )
  )
})
