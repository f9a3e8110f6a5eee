import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ctxOf, withEngine } from "../support/engine.js"

const ws = ctxOf("acme")

// Found by the hostile-input fuzz (test/hostile): streams are named by id alone, so a write to one
// kind of record with another kind's id folded that record's events with the wrong decider, which
// threw (a 500). Such an id names no record of the kind: NotFound, and nothing is written.
describe("engine: a write with another kind's id", () => {
  it.effect("is NotFound for every contact, deal, pipeline and webhook write, and stores nothing", () =>
    withEngine((engine, storage) =>
      Effect.gen(function* () {
        const contact = (yield* engine.contacts.create(ws, { email: "ada@example.com" })).data["id"] as string
        const pipeline = (yield* engine.pipelines.create(ws, { name: "P", stages: [{ name: "One" }] })).data
        const pipelineId = pipeline["id"] as string
        const stageId = (pipeline["stages"] as Array<{ id: string }>)[0]!.id
        const deal = (yield* engine.deals.create(ws, { name: "D", pipeline_id: pipelineId })).data["id"] as string
        const before = yield* storage.readLog({ after: 0, limit: 10_000 })

        const attempts: Array<[string, (id: string) => Effect.Effect<unknown, { readonly _tag: string }>]> = [
          ["contacts.update", (id) => engine.contacts.update(ws, id, { first_name: "X" }, null)],
          ["contacts.delete", (id) => engine.contacts.delete(ws, id, null)],
          ["contacts.restore", (id) => engine.contacts.restore(ws, id)],
          ["deals.update", (id) => engine.deals.update(ws, id, { name: "X" }, null)],
          ["deals.moveStage", (id) => engine.deals.moveStage(ws, id, { stage_id: stageId }, null)],
          ["deals.delete", (id) => engine.deals.delete(ws, id, null)],
          ["deals.restore", (id) => engine.deals.restore(ws, id)],
          ["pipelines.update", (id) => engine.pipelines.update(ws, id, { name: "X" }, null)],
          ["webhooks.update", (id) => engine.webhooks.update(ws, id, { events: ["*"] }, null)],
          ["webhooks.delete", (id) => engine.webhooks.delete(ws, id, null)]
        ]
        const ids = { contact, deal, pipeline: pipelineId, workspace: "ws_acme" }
        for (const [name, write] of attempts) {
          for (const [kind, id] of Object.entries(ids)) {
            if (name.startsWith(`${kind}s.`)) continue
            const failure = yield* Effect.flip(write(id))
            expect(failure._tag, `${name} with a ${kind} id`).toBe("NotFound")
          }
        }
        expect(yield* storage.readLog({ after: 0, limit: 10_000 })).toEqual(before)
      })
    )
  )
})
