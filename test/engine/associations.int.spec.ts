import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { memoryEngineLayer } from "../support/engine.js"
import { associationProperty } from "./associations.js"

describe("deals and contacts stay linked as the model says, on memory storage", () => {
  it.effect("across creates, deletes, restores, purges and patches of contact_ids, every view agrees", () =>
    associationProperty(250).pipe(Effect.provide(memoryEngineLayer)), 60_000)
})
