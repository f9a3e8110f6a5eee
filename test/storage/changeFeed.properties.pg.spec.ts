import { MemoryStorage } from "@dealstream/storage-memory"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { commitTimes } from "../support/commitTimes.js"
import { follow, scenario } from "../support/feedFollow.js"
import { testDatabase } from "../support/pg.js"

describe("the change feed, followed while two hosts write", () => {
  it.live("memory storage: every event of the workspace once, each stream in order", () =>
    Effect.gen(function* () {
      const storage = yield* MemoryStorage.make
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(scenario, (s) => Effect.runPromise(follow([storage, storage], s))),
          { numRuns: 10 }
        )
      )
    })
  )

  it.live(
    "PostgreSQL: every event of the workspace once, each stream in order",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const a = yield* PgStorage.make(url)
        const b = yield* PgStorage.make(url)
        const times = yield* commitTimes(url)
        // A run that spends its reads (about 45 s) fails; shrinking it must not outlast the test, or
        // the timeout would hide what failed.
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(scenario, (s) => Effect.runPromise(follow([a, b], s, times))),
            {
              numRuns: 10,
              plugins: [fc.interruptAfterTimeLimit(105_000, { failOnInterrupt: true })]
            }
          )
        )
      }).pipe(Effect.scoped),
    120_000
  )
})
