import type { EngineService, JsonObject, RequestContext } from "@dealstream/core"
import {
  assertModel,
  associationsHideDeleted,
  deleteThenRestoreIsIdentity,
  type ModelOptions,
  refusalsChangeNothing,
  storedEqualsProjection,
  type World
} from "@dealstream/core/testing"
import { expect } from "@effect/vitest"
import { Effect, Result } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"

/**
 * Model-based property of the links between deals and contacts (API.md, "Soft delete and trash":
 * a deleted record leaves every view, `contact_ids` included, and a restore brings it back exactly).
 *
 * The reference model is written from the contract, not from the engine's code: a deal stores the
 * set of contacts it was linked to; a patch of `contact_ids` names live contacts only (else 400) and
 * keeps the linked contacts that are in the trash; a deal shows the stored contacts that are live.
 * After every step every view that shows a deal or a contact's deals is compared with the model. The
 * steps run through the harness's model runner (`assertModel`), which also checks its own invariants
 * after each: associations never show a deleted record (model-free), delete then restore is identity,
 * stored documents equal the log's projection, refusals record nothing.
 */

type Life = "live" | "trashed" | "purged"

interface ModelContact {
  readonly id: string
  life: Life
}
interface ModelDeal {
  readonly id: string
  life: Life
  /** The contacts the deal is linked to, trashed ones included. */
  stored: Set<string>
  /** The order the client last sent, for the order check. */
  sent: ReadonlyArray<string>
}

export type Step =
  | { readonly _tag: "CreateContact" }
  | { readonly _tag: "DeleteContact"; readonly contact: number }
  | { readonly _tag: "RestoreContact"; readonly contact: number }
  /** `fromLive`: the indices pick among live contacts (a valid write), else among all of them. */
  | { readonly _tag: "CreateDeal"; readonly contacts: ReadonlyArray<number>; readonly fromLive: boolean }
  | { readonly _tag: "PatchContacts"; readonly deal: number; readonly contacts: ReadonlyArray<number>; readonly fromLive: boolean }
  | { readonly _tag: "DeleteDeal"; readonly deal: number }
  | { readonly _tag: "RestoreDeal"; readonly deal: number }
  /** 31 days pass and the purge runs: everything in the trash is purged. */
  | { readonly _tag: "Purge" }

const index = fc.nat(3)
const picks = fc.uniqueArray(index, { maxLength: 4 })
const fromLive = fc.boolean()

export const steps: fc.Arbitrary<ReadonlyArray<Step>> = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.constant({ _tag: "CreateContact" as const }) },
    { weight: 3, arbitrary: index.map((contact) => ({ _tag: "DeleteContact" as const, contact })) },
    { weight: 2, arbitrary: index.map((contact) => ({ _tag: "RestoreContact" as const, contact })) },
    { weight: 3, arbitrary: fc.record({ contacts: picks, fromLive }).map((s) => ({ _tag: "CreateDeal" as const, ...s })) },
    { weight: 4, arbitrary: fc.record({ deal: index, contacts: picks, fromLive }).map((s) => ({ _tag: "PatchContacts" as const, ...s })) },
    { weight: 1, arbitrary: index.map((deal) => ({ _tag: "DeleteDeal" as const, deal })) },
    { weight: 1, arbitrary: index.map((deal) => ({ _tag: "RestoreDeal" as const, deal })) },
    { weight: 1, arbitrary: fc.constant({ _tag: "Purge" as const }) }
  ),
  { minLength: 4, maxLength: 25, size: "max" }
)

const sorted = (ids: Iterable<string>) => [...ids].sort()
const idsOf = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value : []) as ReadonlyArray<string>

const outcome = <A, E extends { readonly _tag: string }>(effect: Effect.Effect<A, E>, record: (outcome: string) => void) =>
  Effect.map(Effect.result(effect), (result) => {
    const said = Result.isSuccess(result) ? "ok" : result.failure._tag
    record(said)
    return said
  })

interface Model {
  readonly pipeline: string
  readonly contacts: Array<ModelContact>
  readonly deals: Array<ModelDeal>
  /** Steps run so far: the emails the run makes are numbered by it. */
  n: number
}

/** Each run's model, made on its first step. */
const models = new WeakMap<World<Step>, Model>()

/** Runs one step through the engine in the run's workspace, then checks every view against the model. */
export const runStep = (world: World<Step>, step: Step) =>
  Effect.gen(function* () {
    const { ctx, engine } = world
    let model = models.get(world)
    if (model === undefined) {
      model = { pipeline: (yield* engine.pipelines.list(ctx)).data[0]!["id"] as string, contacts: [], deals: [], n: 0 }
      models.set(world, model)
    }
    const { contacts, deals, pipeline } = model
    const n = model.n++
    const live = (id: string) => contacts.find((c) => c.id === id)?.life === "live"
    const visible = (deal: ModelDeal) => sorted([...deal.stored].filter(live))
    const record = (outcome: string) => world.outcomes.push({ step, outcome: outcome === "ok" ? "accepted" : "refused" })
    const contact = "contact" in step ? contacts[step.contact % Math.max(1, contacts.length)] : undefined
    const deal = "deal" in step ? deals[step.deal % Math.max(1, deals.length)] : undefined
    const pool = "fromLive" in step && step.fromLive ? contacts.filter((c) => c.life === "live") : contacts
    const named =
      "contacts" in step ? [...new Set(step.contacts.flatMap((i) => (pool.length === 0 ? [] : [pool[i % pool.length]!.id])))] : []
    switch (step._tag) {
      case "CreateContact": {
        const created = yield* engine.contacts.create(ctx, { email: `c${n}.${ctx.workspaceId}@example.com` })
        contacts.push({ id: created.data["id"] as string, life: "live" })
        record("ok")
        break
      }
      case "DeleteContact":
        if (contact === undefined) break
        expect(yield* outcome(engine.contacts.delete(ctx, contact.id, null), record)).toBe(contact.life === "live" ? "ok" : "NotFound")
        if (contact.life === "live") contact.life = "trashed"
        break
      case "RestoreContact":
        if (contact === undefined) break
        expect(yield* outcome(engine.contacts.restore(ctx, contact.id), record)).toBe(contact.life === "trashed" ? "ok" : "NotFound")
        if (contact.life === "trashed") contact.life = "live"
        break
      case "CreateDeal": {
        const allLive = named.every(live)
        const created = yield* Effect.result(engine.deals.create(ctx, { name: `d${n}`, pipeline_id: pipeline, contact_ids: named }))
        record(Result.isSuccess(created) ? "ok" : created.failure._tag)
        expect(Result.isSuccess(created) ? "ok" : created.failure._tag).toBe(allLive ? "ok" : "ValidationError")
        if (Result.isSuccess(created)) {
          deals.push({ id: created.success.data["id"] as string, life: "live", stored: new Set(named), sent: named })
        }
        break
      }
      case "PatchContacts": {
        if (deal === undefined) break
        const expected = deal.life !== "live" ? "NotFound" : named.every(live) ? "ok" : "ValidationError"
        const patched = yield* Effect.result(engine.deals.update(ctx, deal.id, { contact_ids: named }, null))
        record(Result.isSuccess(patched) ? "ok" : patched.failure._tag)
        expect(Result.isSuccess(patched) ? "ok" : patched.failure._tag).toBe(expected)
        if (Result.isSuccess(patched)) {
          const trashed = [...deal.stored].filter((id) => contacts.find((c) => c.id === id)?.life === "trashed")
          deal.stored = new Set([...named, ...trashed])
          deal.sent = named
          // The answer shows what was sent, in the order sent.
          expect(idsOf(patched.success.data["contact_ids"])).toEqual(named)
        }
        break
      }
      case "DeleteDeal":
        if (deal === undefined) break
        expect(yield* outcome(engine.deals.delete(ctx, deal.id, null), record)).toBe(deal.life === "live" ? "ok" : "NotFound")
        if (deal.life === "live") deal.life = "trashed"
        break
      case "RestoreDeal":
        if (deal === undefined) break
        expect(yield* outcome(engine.deals.restore(ctx, deal.id), record)).toBe(deal.life === "trashed" ? "ok" : "NotFound")
        if (deal.life === "trashed") deal.life = "live"
        break
      case "Purge":
        yield* TestClock.adjust("31 days")
        yield* engine.purgeExpired
        record("ok")
        for (const made of [...contacts, ...deals]) if (made.life === "trashed") made.life = "purged"
        break
    }
    yield* checkViews(engine, ctx, contacts, deals, visible)
  })

const checkViews = (
  engine: EngineService,
  ctx: RequestContext,
  contacts: ReadonlyArray<ModelContact>,
  deals: ReadonlyArray<ModelDeal>,
  visible: (deal: ModelDeal) => ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const byId = new Map(deals.map((d) => [d.id, d]))
    const shown = (data: JsonObject) => {
      const model = byId.get(data["id"] as string)!
      const ids = idsOf(data["contact_ids"])
      expect(sorted(ids), `contact_ids of ${model.id}`).toEqual(visible(model))
      // What the client sent keeps its order among what is shown.
      expect(ids.filter((id) => model.sent.includes(id))).toEqual(model.sent.filter((id) => ids.includes(id)))
    }
    const liveDeals = deals.filter((d) => d.life === "live")
    for (const deal of liveDeals) shown((yield* engine.deals.get(ctx, deal.id)).data)

    const listed = (yield* engine.deals.list(ctx, { limit: "100" })).data
    expect(sorted(listed.map((d) => d["id"] as string))).toEqual(sorted(liveDeals.map((d) => d.id)))
    listed.forEach(shown)

    const trash = (yield* engine.trash.list(ctx, { type: "deal", limit: "100" })).data
    expect(sorted(trash.map((t) => t["id"] as string))).toEqual(sorted(deals.filter((d) => d.life === "trashed").map((d) => d.id)))
    for (const item of trash) shown(item["record"] as JsonObject)

    // A list page's deal_ids come from another read than a get's (PostgreSQL: the page's statement).
    const contactsListed = (yield* engine.contacts.list(ctx, { limit: "100" })).data
    expect(sorted(contactsListed.map((c) => c["id"] as string))).toEqual(sorted(contacts.filter((c) => c.life === "live").map((c) => c.id)))
    for (const listedContact of contactsListed) {
      const id = listedContact["id"] as string
      expect(idsOf(listedContact["deal_ids"]), `deal_ids of ${id} in the list`).toEqual(
        sorted(liveDeals.filter((d) => visible(d).includes(id)).map((d) => d.id))
      )
    }

    for (const contact of contacts) {
      const dealsOfContact = sorted(liveDeals.filter((d) => visible(d).includes(contact.id)).map((d) => d.id))
      const filtered = (yield* engine.deals.list(ctx, { contact_id: contact.id, limit: "100" })).data
      expect(sorted(filtered.map((d) => d["id"] as string)), `deals listing ${contact.id}`).toEqual(dealsOfContact)
      filtered.forEach(shown)
      if (contact.life !== "live") {
        expect(yield* outcome(engine.contacts.get(ctx, contact.id, null), () => {})).toBe("NotFound")
        continue
      }
      const one = (yield* engine.contacts.get(ctx, contact.id, "deals")).data
      const expanded = one["deals"] as ReadonlyArray<JsonObject>
      expect(sorted(expanded.map((d) => d["id"] as string))).toEqual(dealsOfContact)
      expanded.forEach(shown)
      expect(sorted(idsOf((yield* engine.contacts.get(ctx, contact.id, null)).data["deal_ids"]))).toEqual(dealsOfContact)
    }
  })

/** The property on the given storage: every run in a workspace of its own, on a TestClock of its own. */
export const associationProperty = (options: Pick<ModelOptions<Step>, "storage" | "storagePerRun" | "numRuns">) =>
  assertModel<Step>({
    ...options,
    commands: steps,
    execute: runStep,
    invariants: [refusalsChangeNothing, associationsHideDeleted, deleteThenRestoreIsIdentity, storedEqualsProjection]
  })
