import { type DeliveryQueue, type JsonObject, type RequestContext, Storage, WebhookConfig } from "@dealstream/core"
import { Context, Effect, Layer, Stream } from "effect"
import { describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { expect } from "vitest"
import { engineOver, servicesOf } from "../support/engine.js"
import * as NodeWebhookTransport from "../../packages/http/src/webhooks/NodeWebhookTransport.js"

/**
 * The property behind "a cache may make a command faster, never wrong": two engines on one storage,
 * as two hosts on one database. The settings engine changes the workspace's custom fields, webhooks
 * and pipeline stages; the writing engine creates and updates contacts and moves deals, and hears
 * nothing of those changes (its storage's settingsChanges is silent), so every write it makes after a
 * change is decided first on settings it kept from before. Each outcome must still be what the
 * settings as stored say: a body naming a field defined since is accepted and one deleted since is
 * refused; a move to a stage added since succeeds and to one removed since is refused; and every
 * event the writer commits gets exactly one delivery per webhook subscribed when it committed.
 */

type Step =
  | { readonly _tag: "Subscribe"; readonly events: ReadonlyArray<string> }
  | { readonly _tag: "Unsubscribe"; readonly webhook: number }
  | { readonly _tag: "DefineField"; readonly field: number }
  | { readonly _tag: "DeleteField"; readonly field: number }
  | { readonly _tag: "AddStage" }
  | { readonly _tag: "RemoveStage"; readonly stage: number }
  | { readonly _tag: "CreateContact"; readonly field: number | null }
  | { readonly _tag: "UpdateContact"; readonly contact: number; readonly field: number }
  | { readonly _tag: "MoveDeal"; readonly stage: number }

const FIELDS = ["tier", "region", "segment"]
const index = fc.nat(7)
export const steps: fc.Arbitrary<ReadonlyArray<Step>> = fc.array(
  fc.oneof(
    fc.record({
      _tag: fc.constant("Subscribe" as const),
      events: fc.constantFrom(["*"], ["contact.created"], ["contact.updated", "deal.stage_changed"])
    }),
    fc.record({ _tag: fc.constant("Unsubscribe" as const), webhook: index }),
    fc.record({ _tag: fc.constant("DefineField" as const), field: fc.nat(FIELDS.length - 1) }),
    fc.record({ _tag: fc.constant("DeleteField" as const), field: fc.nat(FIELDS.length - 1) }),
    fc.constant({ _tag: "AddStage" as const }),
    fc.record({ _tag: fc.constant("RemoveStage" as const), stage: index }),
    {
      weight: 3,
      arbitrary: fc.record({ _tag: fc.constant("CreateContact" as const), field: fc.option(fc.nat(FIELDS.length - 1)) })
    },
    { weight: 2, arbitrary: fc.record({ _tag: fc.constant("UpdateContact" as const), contact: index, field: fc.nat(FIELDS.length - 1) }) },
    { weight: 2, arbitrary: fc.record({ _tag: fc.constant("MoveDeal" as const), stage: index }) }
  ),
  { minLength: 1, maxLength: 30 }
)

const pick = <A>(list: ReadonlyArray<A>, i: number) => (list.length === 0 ? undefined : list[i % list.length])

/** What a refusal says, as plain data that toEqual compares. */
const refusalOf = (error: { readonly _tag: string; readonly message: string }) => ({
  _tag: error._tag,
  message: error.message,
  details: "details" in error ? (error.details as ReadonlyArray<object>).map((detail) => ({ ...detail })) : undefined
})

const subscribes = (events: ReadonlyArray<string>, type: string) => events.includes("*") || events.includes(type)

/** The two engines over one storage context: the writer's storage never tells it of settings changes. */
const twoEngines = (storage: Context.Context<Storage | DeliveryQueue>) => {
  const services = servicesOf(storage)
  const deaf = { ...services, storage: { ...services.storage, settingsChanges: Stream.never } }
  // Registration resolves the target for real; nothing is sent (no worker runs here).
  const webhooks = Layer.merge(WebhookConfig.layer({ allowInsecure: true }), NodeWebhookTransport.layer)
  return Effect.map(Effect.all([engineOver(services, { webhooks }), engineOver(deaf, { webhooks })]), ([settings, writer]) => ({
    settings,
    writer
  }))
}

/**
 * Runs the steps in a workspace of its own and checks every outcome and the outbox against the
 * model; says how many moves into a removed stage it checked.
 */
export const staleSettingsHold = (storage: Context.Context<Storage | DeliveryQueue>, workspaceId: string, script: ReadonlyArray<Step>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { settings, writer } = yield* twoEngines(storage)
      const ctx: RequestContext = { workspaceId, requestId: null, actor: "property" }
      const pipeline = (yield* settings.pipelines.list(ctx)).data[0]!
      const pipelineId = pipeline["id"] as string
      let stages = (pipeline["stages"] as ReadonlyArray<JsonObject>).map((s) => ({ id: s["id"] as string, name: s["name"] as string }))
      const deal = yield* writer.deals.create(ctx, { name: "Pilot", pipeline_id: pipelineId })
      const dealId = deal.data["id"] as string
      let dealStage = deal.data["stage_id"] as string
      const webhooks: Array<{ id: string; events: ReadonlyArray<string>; expected: number }> = []
      const defined = new Set<string>()
      const contacts: Array<string> = []
      const store = Context.get(storage, Storage)
      const removedStages: Array<string> = []
      let attempts = 0
      let removedStageMoves = 0

      /** The writer's event of this type was committed: each subscribed webhook owes one more delivery. */
      const announced = (type: string) => {
        for (const webhook of webhooks) if (subscribes(webhook.events, type)) webhook.expected++
      }

      for (const s of script) {
        switch (s._tag) {
          case "Subscribe": {
            const created = yield* settings.webhooks.create(ctx, { url: "http://127.0.0.1:9/hook", events: s.events })
            webhooks.push({ id: created.data["id"] as string, events: s.events, expected: 0 })
            break
          }
          case "Unsubscribe": {
            const target = pick(
              webhooks.filter((webhook) => webhook.events.length > 0),
              s.webhook
            )
            if (target === undefined) break
            yield* settings.webhooks.delete(ctx, target.id, null)
            // Its deliveries stay (cancelled): counted as they were, but it owes nothing more.
            target.events = []
            break
          }
          case "DefineField": {
            const key = FIELDS[s.field]!
            if (defined.has(key)) break
            yield* settings.customFields.create(ctx, { object: "contact", key, label: key, type: "text" })
            defined.add(key)
            break
          }
          case "DeleteField": {
            const key = FIELDS[s.field]!
            if (!defined.has(key)) break
            yield* settings.customFields.delete(ctx, "contact", key)
            defined.delete(key)
            break
          }
          case "AddStage": {
            const next = [...stages.map((stage) => ({ id: stage.id, name: stage.name })), { name: `Stage ${stages.length + 1}` }]
            const updated = yield* settings.pipelines.update(ctx, pipelineId, { stages: next }, null)
            stages = (updated.data["stages"] as ReadonlyArray<JsonObject>).map((x) => ({
              id: x["id"] as string,
              name: x["name"] as string
            }))
            break
          }
          case "RemoveStage": {
            const target = pick(
              stages.filter((stage) => stage.id !== dealStage),
              s.stage
            )
            if (target === undefined || stages.length <= 2) break
            const updated = yield* settings.pipelines.update(ctx, pipelineId, { stages: stages.filter((x) => x.id !== target.id) }, null)
            stages = (updated.data["stages"] as ReadonlyArray<JsonObject>).map((x) => ({
              id: x["id"] as string,
              name: x["name"] as string
            }))
            // Kept as a name the writer may still try to move to.
            removedStages.push(target.id)
            break
          }
          case "CreateContact": {
            const key = s.field === null ? null : FIELDS[s.field]!
            const outcome = yield* Effect.result(
              writer.contacts.create(ctx, {
                email: `ada${contacts.length}.${attempts++}@example.com`,
                first_name: "Ada",
                ...(key === null ? {} : { [key]: "gold" })
              })
            )
            if (key === null || defined.has(key)) {
              expect(outcome._tag === "Failure" ? String(outcome.failure) : "Success", `create with ${key ?? "no custom field"}`).toBe(
                "Success"
              )
              if (outcome._tag === "Success") {
                contacts.push(outcome.success.data["id"] as string)
                if (key !== null) expect(outcome.success.data[key]).toBe("gold")
                announced("contact.created")
              }
            } else {
              expect(outcome._tag === "Failure" && outcome.failure._tag, `create with the deleted field ${key}`).toBe("ValidationError")
            }
            break
          }
          case "UpdateContact": {
            const id = pick(contacts, s.contact)
            if (id === undefined) break
            const key = FIELDS[s.field]!
            const outcome = yield* Effect.result(writer.contacts.update(ctx, id, { [key]: `v${s.contact}` }, null))
            if (defined.has(key)) {
              expect(outcome._tag, `update of ${key}`).toBe("Success")
              announced("contact.updated")
            } else {
              expect(outcome._tag === "Failure" && outcome.failure._tag, `update of the deleted field ${key}`).toBe("ValidationError")
            }
            break
          }
          case "MoveDeal": {
            const candidates = [...stages.map((stage) => stage.id), ...removedStages]
            const target = candidates[s.stage % candidates.length]!
            const outcome = yield* Effect.result(writer.deals.moveStage(ctx, dealId, { stage_id: target }, null))
            if (stages.some((stage) => stage.id === target)) {
              expect(outcome._tag, "a move to a stage of the pipeline").toBe("Success")
              if (target !== dealStage) announced("deal.stage_changed")
              dealStage = target
            } else {
              removedStageMoves++
              // Refused for the stage it names, not for any other reason (toEqual cannot tell two
              // errors apart: the fields are compared).
              expect(outcome._tag === "Failure" ? refusalOf(outcome.failure) : "Success", "a move to a removed stage").toEqual({
                _tag: "ValidationError",
                message: `stage_id is not a stage of pipeline ${pipelineId}`,
                details: [{ path: "stage_id", message: `is not a stage of pipeline ${pipelineId}` }]
              })
            }
            break
          }
        }
      }

      for (const webhook of webhooks) {
        const deliveries = yield* store.queryDocuments("delivery", workspaceId, {
          where: { _tag: "Compare", field: { name: "webhook_id", type: "id" }, op: "eq", value: webhook.id },
          scope: "live",
          sort: { field: { name: "id", type: "id" }, direction: "asc" },
          after: null,
          limit: 10_000
        })
        expect(deliveries.length, `deliveries of ${webhook.id}`).toBe(webhook.expected)
      }
      return { removedStageMoves }
    })
  )

const ANNOUNCED = ["contact.created", "contact.updated"]

/**
 * The same two engines, now at once: the settings engine subscribes and unsubscribes webhooks while
 * the writer creates and updates contacts. Whatever the interleaving, the outbox must match the log:
 * an event gets a delivery for exactly the webhooks subscribed to it whose creation came before it in
 * the log and whose deletion (if any) after it.
 */
export const concurrentOutboxHolds = (
  storage: Context.Context<Storage | DeliveryQueue>,
  workspaceId: string,
  subscriptions: ReadonlyArray<ReadonlyArray<string>>,
  writes: number
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { settings, writer } = yield* twoEngines(storage)
      const ctx: RequestContext = { workspaceId, requestId: null, actor: "property" }
      const store = Context.get(storage, Storage)
      const changeSettings = Effect.forEach(
        subscriptions,
        (events, i) =>
          Effect.gen(function* () {
            const created = yield* settings.webhooks.create(ctx, { url: "http://127.0.0.1:9/hook", events })
            if (i % 2 === 1) yield* settings.webhooks.delete(ctx, created.data["id"] as string, null)
          }),
        { discard: true }
      )
      // A write that lost every attempt to settings changing under it is a 409 that stored nothing.
      const write = Effect.forEach(
        Array.from({ length: writes }, (_, i) => i),
        (i) =>
          Effect.gen(function* () {
            const contact = yield* writer.contacts.create(ctx, { email: `c${i}@example.com` })
            yield* writer.contacts.update(ctx, contact.data["id"] as string, { first_name: `N${i}` }, null)
          }).pipe(Effect.catchTag("Conflict", () => Effect.void)),
        { discard: true }
      )
      yield* Effect.all([changeSettings, write], { concurrency: 2, discard: true })

      const log = (yield* store.readLog({ after: 0, limit: 1_000_000 })).filter((e) => e.metadata.workspaceId === workspaceId)
      const webhooks = new Map<string, { events: ReadonlyArray<string>; from: number; until: number }>()
      for (const event of log) {
        if (event.type === "webhook.created") {
          webhooks.set(event.streamId, { events: event.data["events"] as ReadonlyArray<string>, from: event.sequence, until: Infinity })
        }
        if (event.type === "webhook.deleted") webhooks.get(event.streamId)!.until = event.sequence
      }
      const expected = new Set<string>()
      for (const event of log) {
        if (!ANNOUNCED.includes(event.type)) continue
        for (const [id, webhook] of webhooks) {
          if (webhook.from < event.sequence && event.sequence < webhook.until && subscribes(webhook.events, event.type)) {
            expected.add(`${id} ${event.metadata.eventId}`)
          }
        }
      }
      const deliveries = yield* store.queryDocuments("delivery", workspaceId, {
        where: { _tag: "True" },
        scope: "live",
        sort: { field: { name: "id", type: "id" }, direction: "asc" },
        after: null,
        limit: 100_000
      })
      const actual = deliveries.map((d) => `${d.data["webhook_id"]} ${d.data["event_id"]}`)
      expect(actual.length, "one delivery per webhook and event").toBe(new Set(actual).size)
      expect(new Set(actual)).toEqual(expected)
    })
  )

/**
 * Reads answer from settings the host kept when the storage says they are current (a GET and a list
 * page read the settings version with the record, in one call), and follow a change made through
 * the other engine when they are not: a field defined since is shown, filtered and sorted on; one
 * deleted since is neither shown nor accepted in a filter.
 */
export const staleReadsHold = (storage: Context.Context<Storage | DeliveryQueue>, workspaceId: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { settings, writer: reader } = yield* twoEngines(storage)
      const ctx: RequestContext = { workspaceId, requestId: null, actor: "reads" }
      const contact = yield* settings.contacts.create(ctx, { email: "kept@example.com" })
      const id = contact.data["id"] as string
      // Warm: the reader keeps the catalog without the field.
      expect((yield* reader.contacts.get(ctx, id, null)).data).not.toHaveProperty("tier")
      expect((yield* reader.contacts.list(ctx, {})).data).toHaveLength(1)

      yield* settings.customFields.create(ctx, { object: "contact", key: "tier", label: "Tier", type: "text" })
      yield* settings.contacts.update(ctx, id, { tier: "gold" }, null)
      yield* settings.contacts.create(ctx, { email: "other@example.com", tier: "silver" })
      // A page that names no field still shows the new one (its settings version is read with it).
      expect((yield* reader.contacts.list(ctx, {})).data.map((c) => c["tier"])).toEqual(["gold", "silver"])
      expect((yield* reader.contacts.get(ctx, id, null)).data["tier"]).toBe("gold")
      const gold = yield* reader.contacts.list(ctx, { filter: JSON.stringify({ tier: "gold" }) })
      expect(gold.data.map((c) => c["id"])).toEqual([id])
      const sorted = yield* reader.contacts.list(ctx, { sort: "-tier" })
      expect(sorted.data.map((c) => c["tier"])).toEqual(["silver", "gold"])

      yield* settings.customFields.delete(ctx, "contact", "tier")
      expect((yield* reader.contacts.list(ctx, {})).data.map((c) => "tier" in c)).toEqual([false, false])
      expect((yield* reader.contacts.get(ctx, id, null)).data).not.toHaveProperty("tier")
      const refused = yield* Effect.flip(reader.contacts.list(ctx, { filter: JSON.stringify({ tier: "gold" }) }))
      expect(refused._tag).toBe("ValidationError")
    })
  )

export const subscriptions = fc.array(fc.constantFrom(["*"], ["contact.created"], ["contact.updated"]), { minLength: 1, maxLength: 8 })

/** Both properties over one storage (memory or PostgreSQL), each a database of its own for the file. */
export const staleSettingsSuite = <E>(name: string, storageLayer: Layer.Layer<Storage | DeliveryQueue, E>, numRuns: number) =>
  describe(`two engines on one ${name}, one of them deaf to settings changes`, () => {
    const property = <A>(
      arbitrary: fc.Arbitrary<A>,
      check: (storage: Context.Context<Storage | DeliveryQueue>, workspace: string, value: A) => Effect.Effect<void, unknown>,
      prefix: string
    ) =>
      Effect.gen(function* () {
        const storage = yield* Layer.build(storageLayer)
        const run = Effect.runPromiseWith(yield* Effect.context<never>())
        let workspace = 0
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(arbitrary, (value) => run(check(storage, `${prefix}_${workspace++}`, value))),
            { numRuns }
          )
        )
      }).pipe(Effect.scoped)

    it.effect(
      "decides every write as the settings stored say, and the outbox follows them",
      () => property(steps, (storage, workspace, script) => Effect.asVoid(staleSettingsHold(storage, workspace, script)), "ws"),
      120_000
    )

    // Random scripts seldom move the deal into a stage removed since (about one run in 40): this one
    // does, from a writer that still keeps the stage (it read the pipeline creating the deal).
    it.effect(
      "refuses a move into a stage removed since the writer read its settings, for that stage",
      () =>
        Effect.gen(function* () {
          const storage = yield* Layer.build(storageLayer)
          // The default pipeline's six stages, the deal in the first: the second goes, and the move
          // names it (after the five left in the candidates the script picks from).
          const checked = yield* staleSettingsHold(storage, `removed_${Date.now().toString(36)}`, [
            { _tag: "RemoveStage", stage: 0 },
            { _tag: "MoveDeal", stage: 5 }
          ])
          expect(checked.removedStageMoves).toBe(1)
        }).pipe(Effect.scoped),
      60_000
    )

    it.effect(
      "answers reads as the settings stored say, from kept settings only while they are current",
      () =>
        Effect.gen(function* () {
          const storage = yield* Layer.build(storageLayer)
          yield* staleReadsHold(storage, `reads_${Date.now().toString(36)}`)
        }).pipe(Effect.scoped),
      60_000
    )

    it.effect(
      "schedules deliveries exactly as the log orders webhooks and events, while both run at once",
      () =>
        property(
          fc.tuple(subscriptions, fc.integer({ min: 1, max: 12 })),
          (storage, workspace, [subs, writes]) => concurrentOutboxHolds(storage, workspace, subs, writes),
          "at_once"
        ),
      120_000
    )
  })
