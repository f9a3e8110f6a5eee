import { DeliveryQueue, Engine, EngineLive, IdsLive, Storage, type StorageService } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { ctxOf, noWebhookSending } from "../support/engine.js"

/**
 * What a warm host asks of its storage per command (issue 13: one round trip on the common paths).
 * Every storage call is counted; after the workspace's first requests (its settings are kept then),
 * a write is its commit, plus, for a contact's patch and restore, the deals naming it, read once
 * before the commit: the view the write's event carries, which is also its answer.
 */
const counted = Layer.effectContext(
  Effect.gen(function* () {
    const context = yield* Layer.build(MemoryStorage.layer)
    const storage = Context.get(context, Storage)
    const calls: Array<string> = []
    const spans: Array<string> = []
    const counting = Object.fromEntries(
      Object.entries(storage).map(([name, member]) => [
        name,
        typeof member === "function"
          ? (...args: Array<unknown>) => {
              calls.push(name)
              // When the call runs and when it ends, which may be later than when it is made.
              const call = (member as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args)
              return Effect.andThen(
                Effect.sync(() => spans.push(`${name} start`)),
                Effect.ensuring(
                  call,
                  Effect.sync(() => spans.push(`${name} end`))
                )
              )
            }
          : member
      ])
    ) as unknown as StorageService
    return Context.make(Storage, counting).pipe(
      Context.add(DeliveryQueue, Context.get(context, DeliveryQueue)),
      Context.add(CallLog, { calls, spans })
    )
  })
)

class CallLog extends Context.Service<CallLog, { readonly calls: Array<string>; readonly spans: Array<string> }>()("test/CallLog") {}

const layer = EngineLive.pipe(Layer.provideMerge(counted), Layer.provide(IdsLive), Layer.provide(noWebhookSending))

describe("storage calls per command on a warm host", () => {
  it.effect(
    "create, patch, move, delete and restore each commit once; a contact's patch and restore read its deals once, before the commit",
    () =>
      Effect.gen(function* () {
        const engine = yield* Engine
        const { calls, spans } = yield* CallLog
        const ctx = ctxOf("acme")
        const during = <A, E>(effect: Effect.Effect<A, E>) =>
          Effect.gen(function* () {
            calls.length = 0
            spans.length = 0
            const result = yield* effect
            return { result, calls: [...calls].sort(), spans: [...spans] }
          })
        // The deals are read for the view the event carries into the commit (its announcement), and
        // the answer is that view: no read after the commit, and none beside it.
        const readThenCommit = ["queryDocuments start", "queryDocuments end", "commit start", "commit end"]
        // Warm-up: the workspace's pipeline, catalog and webhooks are read once.
        const pipeline = (yield* engine.pipelines.list(ctx)).data[0]!
        const stages = (pipeline["stages"] as ReadonlyArray<{ id: string }>).map((s) => s.id)
        const first = yield* engine.contacts.create(ctx, { email: "first@example.com" })
        const deal = yield* engine.deals.create(ctx, { name: "Pilot", pipeline_id: pipeline["id"] })
        const contactId = first.data["id"] as string
        const dealId = deal.data["id"] as string

        expect((yield* during(engine.contacts.create(ctx, { email: "ada@example.com" }))).calls).toEqual(["commit"])
        expect((yield* during(engine.deals.create(ctx, { name: "Second", pipeline_id: pipeline["id"] }))).calls).toEqual(["commit"])
        const patched = yield* during(engine.contacts.update(ctx, contactId, { first_name: "Ada" }, null))
        expect(patched.calls).toEqual(["commit", "queryDocuments"])
        expect(patched.spans).toEqual(readThenCommit)
        expect((yield* during(engine.deals.update(ctx, dealId, { name: "Pilot 2" }, null))).calls).toEqual(["commit"])
        for (const stage of [stages[1]!, stages[2]!, stages[1]!]) {
          expect((yield* during(engine.deals.moveStage(ctx, dealId, { stage_id: stage }, null))).calls).toEqual(["commit"])
        }
        expect((yield* during(engine.contacts.delete(ctx, contactId, null))).calls).toEqual(["commit"])
        const restored = yield* during(engine.contacts.restore(ctx, contactId))
        expect(restored.calls).toEqual(["commit", "queryDocuments"])
        expect(restored.spans).toEqual(readThenCommit)
        // A deal's delete and restore rewrite every stage change it made (the figures count deals in
        // the trash nowhere: deal/figureDocuments.ts), which its stream says: one read of it.
        expect((yield* during(engine.deals.delete(ctx, dealId, null))).calls).toEqual(["commit", "readStream"])
        expect((yield* during(engine.deals.restore(ctx, dealId))).calls).toEqual(["commit", "readStream"])
      }).pipe(Effect.provide(layer))
  )

  it.effect("a contact's GET and a page of contacts are one storage call each, deal_ids and the settings check included", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const { calls } = yield* CallLog
      const ctx = ctxOf("acme")
      const pipeline = (yield* engine.pipelines.list(ctx)).data[0]!
      const contact = yield* engine.contacts.create(ctx, { email: "read@example.com", source: "web" })
      const contactId = contact.data["id"] as string
      const deal = yield* engine.deals.create(ctx, { name: "Pilot", pipeline_id: pipeline["id"], contact_ids: [contactId] })
      yield* engine.contacts.list(ctx, {})

      calls.length = 0
      const got = yield* engine.contacts.get(ctx, contactId, null)
      expect(got.data["deal_ids"]).toEqual([deal.data["id"]])
      expect([...calls]).toEqual(["readRecord"])

      calls.length = 0
      const page = yield* engine.contacts.list(ctx, { filter: JSON.stringify({ source: "web" }), sort: "-created_at" })
      expect(page.data.map((c) => c["deal_ids"])).toEqual([[deal.data["id"]]])
      expect([...calls]).toEqual(["queryRecords"])
    }).pipe(Effect.provide(layer))
  )
})
