import type { DeliveryQueue, Storage } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "@effect/vitest"
import { type Context, Effect, Layer } from "effect"
import { stageRulesScenario, wonNeedsContactProperty } from "./stageRules.js"

describe("stage rules on memory storage", () => {
  it.effect("the pipeline's rules and a rule of one's own refuse moves, on engines that kept the pipeline too", () =>
    Effect.gen(function* () {
      const storage = yield* Layer.build(MemoryStorage.layer)
      yield* stageRulesScenario(storage as Context.Context<Storage | DeliveryQueue>)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a rule of one's own holds over random command sequences, and they break it without the rule",
    () => wonNeedsContactProperty(MemoryStorage.layer, { numRuns: 60, storagePerRun: true, withoutRule: true }),
    60_000
  )
})
