import { DeliveryQueue, Storage } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import { concurrentOutboxHolds, staleSettingsHold, steps, subscriptions } from "./staleSettings.js"

describe("two engines on one memory storage, one of them deaf to settings changes", () => {
  it.effect("decides every write as the settings stored say, and the outbox follows them", () =>
    Effect.gen(function*() {
      const storage = yield* Layer.build(MemoryStorage.layer)
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
      let workspace = 0
      yield* Effect.promise(() =>
        fc.assert(fc.asyncProperty(steps, (script) => run(staleSettingsHold(storage, `ws_${workspace++}`, script))), { numRuns: 60 })
      )
    }).pipe(Effect.scoped), 60_000)

  it.effect("schedules deliveries exactly as the log orders webhooks and events, while both run at once", () =>
    Effect.gen(function*() {
      const storage = yield* Layer.build(MemoryStorage.layer)
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
      let workspace = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(subscriptions, fc.integer({ min: 1, max: 12 }), (subs, writes) =>
            run(concurrentOutboxHolds(storage, `at_once_${workspace++}`, subs, writes))),
          { numRuns: 20 }
        )
      )
    }).pipe(Effect.scoped), 120_000)
})
