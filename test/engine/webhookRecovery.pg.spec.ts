import { DeliveryQueue, Storage } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { pgStorageLayer } from "../support/pg.js"
import { purgedAndCovered, racingRunners } from "./webhookRecovery.js"

describe("webhook recovery", () => {
  it.effect("memory storage: skips purged and covered events, folds each payload, one job at a time", () =>
    Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => purgedAndCovered(storage, queue))
  )
  it.effect("memory storage: runners racing and one killed mid-way schedule each event once", () =>
    Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => racingRunners(storage, queue))
  )

  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("PostgreSQL: skips purged and covered events, folds each payload, one job at a time", () =>
      Effect.gen(function* () {
        yield* purgedAndCovered(yield* Storage, yield* DeliveryQueue)
      })
    )
    it.effect("PostgreSQL: runners racing and one killed mid-way schedule each event once", () =>
      Effect.gen(function* () {
        yield* racingRunners(yield* Storage, yield* DeliveryQueue)
      })
    )
  })
})
