import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { command, coverage, everyKind, storedEqualsRebuilt } from "./rebuildEqualsStored.js"

describe("engine on memory storage", () => {
  it.effect("stores exactly what a rebuild from the log makes, after random commands", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
      const seen = coverage()
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 60, size: "max" }), async (commands) => {
            // A storage of its own per case, so a shrunk counterexample replays alone.
            const { queue, storage } = await run(MemoryStorage.makeWithQueue)
            seen.add(await run(storedEqualsRebuilt(storage, queue, commands)))
          }),
          { numRuns: 50, examples: [[everyKind]] }
        )
      )
      seen.check()
    }), 60_000)
})
