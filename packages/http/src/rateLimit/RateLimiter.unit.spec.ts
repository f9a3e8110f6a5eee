import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import * as RateLimiter from "./RateLimiter.js"

/** A token taken at the engine's time, as Authentication takes one. */
const take = (limiter: RateLimiter.RateLimiterService, name: string) =>
  Effect.map(Clock.currentTimeMillis, (now) => limiter.takeAt(name, now))

describe("RateLimiter", () => {
  it.effect("refuses past the burst and refills at the rate", () =>
    Effect.gen(function* () {
      const limiter = RateLimiter.make({ rate: 2, burst: 3 })
      const taken = []
      for (let i = 0; i < 4; i++) taken.push(yield* take(limiter, "a"))
      expect(taken.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0]
      ])
      expect(taken[3]!.retryAfterSeconds).toBe(1)
      expect(taken[3]!.resetSeconds).toBe(2)
      yield* TestClock.adjust("500 millis")
      expect((yield* take(limiter, "a")).allowed).toBe(true)
      expect((yield* take(limiter, "a")).allowed).toBe(false)
    })
  )

  it.effect("drops a bucket once it has had time to fill up, and only then", () =>
    Effect.gen(function* () {
      const limiter = RateLimiter.make({ rate: 1, burst: 10 })
      yield* take(limiter, "a")
      yield* take(limiter, "a")
      yield* TestClock.adjust("1 seconds")
      yield* take(limiter, "b")
      // a has 9 of 10 tokens: not full, kept (dropping it would give back a token).
      expect(limiter.size()).toBe(2)
      yield* TestClock.adjust("1 seconds")
      yield* take(limiter, "c")
      // a is full again (8 + 2 s at 1/s), and so is b (9 + 1): both go; c stays.
      expect(limiter.size()).toBe(1)
      // A dropped bucket starts full, which is what it had.
      expect((yield* take(limiter, "a")).remaining).toBe(9)
    })
  )

  it.effect("holds at most `capacity` buckets under a spray of names, the least recently used going first", () =>
    Effect.gen(function* () {
      const limiter = RateLimiter.make({ rate: 0.001, burst: 2, capacity: 100 })
      for (let i = 0; i < 1000; i++) yield* take(limiter, `spray-${i}`)
      expect(limiter.size()).toBe(100)
      // The newest are still counted: a second request of the last name sees its bucket.
      expect((yield* take(limiter, "spray-999")).remaining).toBe(0)
      // The oldest went; it starts again with a full bucket.
      expect((yield* take(limiter, "spray-0")).remaining).toBe(1)
      expect(limiter.size()).toBe(100)
    })
  )

  it.effect("a clock that steps back does not take tokens away", () =>
    Effect.gen(function* () {
      const limiter = RateLimiter.make({ rate: 1, burst: 2 })
      yield* TestClock.setTime(10_000)
      yield* take(limiter, "a")
      yield* TestClock.setTime(5_000)
      expect((yield* take(limiter, "a")).allowed).toBe(true)
    })
  )
})
