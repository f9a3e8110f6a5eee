import { type Commit, DeliveryQueue, Engine, EngineLive, IdsLive, type JsonObject, Storage } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { ctxOf, noWebhookSending } from "../support/engine.js"

// Regression: a deal write read its deal back after committing, so a delete committed in between
// (another request) made the write answer 404 although it had happened; a client retrying its
// create with the same Idempotency-Key (404s are not stored) then created the deal twice. Found by
// test/host/crash.e2e.pg.spec.ts. Here the delete is slipped in deterministically, right after the
// write's commit and before its answer.

const ws = ctxOf("acme")

/** Runs once, right after the next commit returns: the other request that wins the race. */
let afterNextCommit: ((commit: Commit) => Effect.Effect<unknown, unknown>) | null = null

const racingStorage = Layer.effectContext(
  Effect.gen(function* () {
    const inner = yield* Storage
    const queue = yield* DeliveryQueue
    const storage: typeof Storage.Service = {
      ...inner,
      commit: (commit) =>
        Effect.tap(inner.commit(commit), () => {
          const other = afterNextCommit
          afterNextCommit = null
          return other === null ? Effect.void : Effect.orDie(other(commit))
        })
    }
    return Context.make(Storage, storage).pipe(Context.add(DeliveryQueue, queue))
  })
).pipe(Layer.provide(MemoryStorage.layer))

const engineLayer = EngineLive.pipe(Layer.provide(racingStorage), Layer.provide(IdsLive), Layer.provide(noWebhookSending))

describe("engine: a deal write deleted by another request right after its commit", () => {
  it.effect("answers with the deal as the write left it, not 404", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const deleteIt = (commit: Commit) => engine.deals.delete(ws, commit.streams[0]!.streamId, null)
      const sales = (yield* engine.pipelines.list(ws)).data[0]!
      const stages = (sales["stages"] as ReadonlyArray<JsonObject>).map((s) => s["id"] as string)
      const gone = (id: string) => Effect.map(Effect.flip(engine.deals.get(ws, id)), (error) => error._tag)

      afterNextCommit = deleteIt
      const created = yield* engine.deals.create(ws, { name: "Raced", pipeline_id: sales["id"], value: 1 })
      const id = created.data["id"] as string
      expect(created).toMatchObject({ version: 1, data: { name: "Raced", value: 1, stage_id: stages[0] } })
      expect(yield* gone(id)).toBe("NotFound")

      afterNextCommit = deleteIt
      const restored = yield* engine.deals.restore(ws, id)
      expect(restored).toMatchObject({ version: 3, data: { id, name: "Raced" } })
      expect(yield* gone(id)).toBe("NotFound")

      yield* engine.deals.restore(ws, id)
      afterNextCommit = deleteIt
      const updated = yield* engine.deals.update(ws, id, { value: 2 }, null)
      expect(updated).toMatchObject({ version: 6, data: { id, value: 2 } })
      expect(yield* gone(id)).toBe("NotFound")

      yield* engine.deals.restore(ws, id)
      afterNextCommit = deleteIt
      const moved = yield* engine.deals.moveStage(ws, id, { stage_id: stages[2], reason: "raced" }, null)
      expect(moved.version).toBe(9)
      expect(moved.data["deal"]).toMatchObject({ id, stage_id: stages[2], value: 2 })
      expect(moved.data["timeline_entry"]).toMatchObject({ deal_id: id, from_stage_id: stages[0], to_stage_id: stages[2], reason: "raced" })
      expect(yield* gone(id)).toBe("NotFound")
      expect(afterNextCommit).toBeNull()
    }).pipe(Effect.provide(engineLayer))
  )
})
