import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { ctxOf, withEngine } from "../support/engine.js"

/** Reads of the change feed that wait: woken by a commit, and answered at once by a stopping host. */
describe("waiting reads of the change feed", () => {
  it.effect("are woken by the commit of an event, and answer with it", () =>
    TestClock.withLive(withEngine((engine) =>
      Effect.gen(function*() {
        const ctx = ctxOf("ws_wait")
        const { next_cursor } = yield* engine.events.list(ctx, {})
        const waiting = yield* Effect.forkChild(engine.events.list(ctx, { after: next_cursor, wait: "30" }))
        // Until the read waits: it read nothing and took its ticket.
        for (let i = 0; i < 10; i++) yield* Effect.yieldNow
        const created = yield* engine.contacts.create(ctx, { email: "woken@example.com" })
        const page = yield* Fiber.join(waiting)
        expect(page.data.map((event) => (event["data"] as { contact: { id: string } }).contact.id)).toEqual([created.data["id"]])
      })
    )))

  it.effect("answer with their empty page once the host stops waiting, and later reads do not wait", () =>
    TestClock.withLive(withEngine((engine) =>
      Effect.gen(function*() {
        const ctx = ctxOf("ws_stop")
        const { next_cursor } = yield* engine.events.list(ctx, {})
        const waiting = yield* Effect.forkChild(engine.events.list(ctx, { after: next_cursor, wait: "30" }))
        for (let i = 0; i < 10; i++) yield* Effect.yieldNow
        yield* engine.events.stopWaiting
        expect(yield* Fiber.join(waiting)).toEqual({ data: [], next_cursor })
        expect(yield* engine.events.list(ctx, { after: next_cursor, wait: "30" })).toEqual({ data: [], next_cursor })
      })
    )))
})
