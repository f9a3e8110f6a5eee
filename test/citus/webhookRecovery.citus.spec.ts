import { DeliveryQueue, Storage } from "@dealstream/core"
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { purgedAndCovered, racingRunners } from "../engine/webhookRecovery.js"
import { citusStorageLayer } from "../support/citusDatabase.js"

// Issue 31: the 30-day purge and the webhook recovery runners on the cluster (docs/citus.md).

describe("purge and webhook recovery on Citus", () => {
  it.layer(citusStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("skips purged and covered events, folds each payload, one job at a time", () =>
      Effect.gen(function* () {
        yield* purgedAndCovered(yield* Storage, yield* DeliveryQueue)
      })
    )
    it.effect("runners racing and one killed mid-way schedule each event once", () =>
      Effect.gen(function* () {
        yield* racingRunners(yield* Storage, yield* DeliveryQueue)
      })
    )
  })
})
