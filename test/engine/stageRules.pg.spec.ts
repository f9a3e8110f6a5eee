import { DeliveryQueue, Storage } from "@dealstream/core"
import { describe, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { pgStorageLayer } from "../support/pg.js"
import { stageRulesScenario, wonNeedsContactProperty } from "./stageRules.js"

describe("stage rules on PostgreSQL", () => {
  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect(
      "the pipeline's rules and a rule of one's own refuse moves, on engines that kept the pipeline too",
      () =>
        Effect.gen(function* () {
          const context = yield* Effect.context<Storage | DeliveryQueue>()
          yield* stageRulesScenario(Context.pick(Storage, DeliveryQueue)(context))
        }),
      60_000
    )
  })

  it.effect(
    "a rule of one's own holds over random command sequences",
    () => wonNeedsContactProperty(pgStorageLayer, { numRuns: 15, storagePerRun: false, withoutRule: false }),
    110_000
  )
})
