import { DeliveryQueue, Storage } from "@dealstream/core"
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { pgStorageLayer } from "../support/pg.js"
import { command, coverage, everyKind, storedEqualsRebuilt } from "./rebuildEqualsStored.js"

describe("engine on PostgreSQL", () => {
  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("stores exactly what a rebuild from the log makes, after random commands", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
        const storage = yield* Storage
        const queue = yield* DeliveryQueue
        const run = Effect.runPromiseWith(yield* Effect.context<never>())
        const seen = coverage()
        // One database for the file: each case has workspaces and keys of its own, and compares
        // only those (a rebuild rewrites every workspace's documents, earlier cases' included).
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40, size: "max" }), (commands) =>
              run(storedEqualsRebuilt(storage, queue, commands)).then(seen.add)),
            { numRuns: 25, examples: [[everyKind]] }
          )
        )
        seen.check()
      }), 110_000)
  })
})
