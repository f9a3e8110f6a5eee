import { EngineLive, IdsLive } from "@dealstream/core"
import { describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { noWebhookSending } from "../support/engine.js"
import { pgStorageLayer } from "../support/pg.js"
import { associationProperty } from "./associations.js"

const engineOnPostgres = EngineLive.pipe(
  Layer.provideMerge(pgStorageLayer),
  Layer.provide(IdsLive),
  Layer.provide(noWebhookSending)
)

describe("deals and contacts stay linked as the model says, on PostgreSQL", () => {
  it.effect("across creates, deletes, restores, purges and patches of contact_ids, every view agrees", () =>
    associationProperty(40).pipe(Effect.provide(engineOnPostgres), Effect.scoped), 120_000)
})
