import {
  type ApiKeyEvent,
  apiKeyIdOf,
  type Collection,
  DeliveryQueue,
  type DeliveryQueueService,
  Engine,
  EngineLive,
  type EngineService,
  IdsLive,
  type JsonObject,
  projectApiKey,
  type Projected,
  rebuildDocuments,
  type RequestContext,
  Storage,
  type StorageService,
  type StoredDocument,
  type StoredEvent,
  SYSTEM_WORKSPACE
} from "@dealstream/core"
import { createHash } from "node:crypto"
import { isDeepStrictEqual } from "node:util"
import { Context, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { expect } from "vitest"
import { noWebhookSending } from "../support/engine.js"

/**
 * The property behind "documents are pure projections of the log, so they can be rebuilt at any
 * time": random commands run through the engine on a real storage, then what that storage holds is
 * compared with what `rebuildDocuments` (the code `dealstream rebuild` runs) makes of the log.
 *
 * Both sides are read back from storage, so this catches a command path that writes something its
 * events do not say (or forgets to write something they do), a storage that loses or changes a
 * field on upsert, and a rebuild that projects differently from the command path. Compared: every
 * document's collection, workspace, id, version, deletedAt and data. Not compared: the search words
 * and unique keys stored beside them, which the Storage port does not return.
 */

// ---------------------------------------------------------------- commands

const DAY = 86_400_000

type Body = Record<string, unknown>

export type Command =
  | { readonly kind: "defineField"; readonly ws: number; readonly field: number; readonly type: FieldType }
  | { readonly kind: "deleteField"; readonly ws: number; readonly field: number }
  | { readonly kind: "createContact"; readonly ws: number; readonly body: Body }
  | { readonly kind: "updateContact"; readonly ws: number; readonly target: number; readonly body: Body }
  | { readonly kind: "deleteContact" | "restoreContact"; readonly ws: number; readonly target: number }
  | {
    readonly kind: "createDeal"
    readonly ws: number
    readonly body: Body
    readonly pipeline: number
    readonly stage: number | null
    readonly contacts: ReadonlyArray<number>
  }
  | {
    readonly kind: "updateDeal"
    readonly ws: number
    readonly target: number
    readonly body: Body
    readonly stage: number | null
    readonly pipeline: number | null
    readonly contacts: ReadonlyArray<number> | null
  }
  | { readonly kind: "moveStage"; readonly ws: number; readonly target: number; readonly stage: number; readonly reason: string | null }
  | { readonly kind: "deleteDeal" | "restoreDeal"; readonly ws: number; readonly target: number }
  | { readonly kind: "createPipeline"; readonly ws: number; readonly name: string; readonly stages: number }
  | { readonly kind: "updatePipeline"; readonly ws: number; readonly target: number; readonly change: PipelineChange }
  | { readonly kind: "createKey"; readonly ws: number; readonly key: number }
  | { readonly kind: "revokeKey"; readonly key: number }
  | { readonly kind: "tick"; readonly millis: number }
  /** Past the 30-day window (or not), then the purge the host runs every hour. */
  | { readonly kind: "purge"; readonly millis: number }

type FieldType = "text" | "number" | "boolean"
type PipelineChange = "rename" | "append" | "reverse" | "dropLast"

/** Custom fields the commands define, delete and define again (with another type, sometimes). */
const fields = [
  { object: "contact", key: "nick" },
  { object: "contact", key: "score" },
  { object: "deal", key: "region" }
] as const

const words = ["Ann", "ann", "Zoë", "Straße", "ΣΑΣ", "sky blue", "😀 smile"]
const maybe = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: null, freq: 4 })
const text = fc.constantFrom(...words)
// Any JSON type for custom values: each fits one of the types a field may have at the time.
const customValue = fc.oneof(text, fc.constantFrom(0, 7, 2.5), fc.boolean(), fc.constant(null))
const email = fc.tuple(fc.constantFrom("ann", "Ann", "bob", "zoe", "kim", "lee"), fc.nat(5), fc.constantFrom("x.io", "X.io"))
  .map(([name, n, domain]) => `${name}${n}@${domain}`)

/** Standard fields, and now and then a custom one (refused while that field is not defined). */
const withCustom = (standard: fc.Arbitrary<Body>, keys: ReadonlyArray<string>): fc.Arbitrary<Body> =>
  fc.tuple(standard, fc.oneof(
    { arbitrary: fc.constant(null), weight: 3 },
    { arbitrary: fc.tuple(fc.constantFrom(...keys), customValue), weight: 1 }
  ))
    .map(([body, custom]) => custom === null ? body : { ...body, [custom[0]]: custom[1] })

const contactFields = withCustom(
  fc.record({ email, first_name: maybe(text), last_name: maybe(text), title: maybe(text) }, { requiredKeys: [] }),
  ["nick", "score"]
)
const dealFields = withCustom(
  fc.record(
    {
      name: text,
      value: maybe(fc.constantFrom(0, 100, 2.5)),
      currency: maybe(fc.constantFrom("EUR", "USD")),
      status: fc.constantFrom("open", "won", "lost")
    },
    { requiredKeys: [] }
  ),
  ["region"]
)

// Mostly one workspace, so that records meet; the other shows that nothing crosses over.
const ws = fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.constant(1), weight: 1 })
const target = fc.nat(12)
const stage = fc.nat(12)

export const command: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("defineField" as const),
      ws,
      field: fc.nat(fields.length - 1),
      type: fc.constantFrom<FieldType>("text", "number", "boolean")
    }),
    weight: 3
  },
  { arbitrary: fc.record({ kind: fc.constant("deleteField" as const), ws, field: fc.nat(fields.length - 1) }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant("createContact" as const), ws, body: contactFields, email })
      .map(({ email, ...c }) => ({ ...c, body: { email, ...c.body } })),
    weight: 6
  },
  { arbitrary: fc.record({ kind: fc.constant("updateContact" as const), ws, target, body: contactFields }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("deleteContact" as const), ws, target }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("restoreContact" as const), ws, target }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant("createDeal" as const),
      ws,
      body: dealFields,
      pipeline: fc.nat(3),
      stage: maybe(stage),
      contacts: fc.array(target, { maxLength: 3 })
    }),
    weight: 4
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("updateDeal" as const),
      ws,
      target,
      body: dealFields,
      stage: maybe(stage),
      pipeline: fc.option(fc.nat(3), { nil: null, freq: 2 }),
      contacts: maybe(fc.array(target, { maxLength: 3 }))
    }),
    weight: 3
  },
  {
    arbitrary: fc.record({ kind: fc.constant("moveStage" as const), ws, target, stage, reason: maybe(text) }),
    weight: 3
  },
  { arbitrary: fc.record({ kind: fc.constant("deleteDeal" as const), ws, target }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("restoreDeal" as const), ws, target }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant("createPipeline" as const), ws, name: text, stages: fc.integer({ min: 1, max: 3 }) }),
    weight: 1
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("updatePipeline" as const),
      ws,
      target: fc.nat(3),
      change: fc.constantFrom<PipelineChange>("rename", "append", "reverse", "dropLast")
    }),
    weight: 1
  },
  { arbitrary: fc.record({ kind: fc.constant("createKey" as const), ws, key: fc.nat(1) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("revokeKey" as const), key: fc.nat(1) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("tick" as const), millis: fc.integer({ min: 0, max: 3 * DAY }) }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant("purge" as const),
      millis: fc.oneof(fc.constant(0), fc.integer({ min: 29 * DAY, max: 32 * DAY }))
    }),
    weight: 2
  }
)

/**
 * A sequence in which every kind of command is accepted at least once (the first of each run's
 * cases), so the comparison always covers them whatever the random ones happen to do.
 */
export const everyKind: ReadonlyArray<Command> = [
  { kind: "defineField", ws: 0, field: 0, type: "text" },
  { kind: "defineField", ws: 0, field: 2, type: "text" },
  { kind: "createContact", ws: 0, body: { email: "ann0@x.io", first_name: "Ann", nick: "sky blue" } },
  { kind: "createContact", ws: 0, body: { email: "bob1@x.io" } },
  { kind: "createDeal", ws: 0, body: { name: "Pilot", value: 100, currency: "EUR", region: "Zoë" }, pipeline: 0, stage: null, contacts: [0, 1] },
  { kind: "moveStage", ws: 0, target: 0, stage: 2, reason: "call" },
  { kind: "updateDeal", ws: 0, target: 0, body: { value: 250 }, stage: 4, pipeline: null, contacts: null },
  { kind: "updateContact", ws: 0, target: 0, body: { title: "CTO", nick: null } },
  { kind: "createPipeline", ws: 0, name: "Ann", stages: 2 },
  { kind: "updatePipeline", ws: 0, target: 1, change: "append" },
  { kind: "deleteContact", ws: 0, target: 1 },
  { kind: "restoreContact", ws: 0, target: 1 },
  { kind: "deleteDeal", ws: 0, target: 0 },
  { kind: "restoreDeal", ws: 0, target: 1 },
  { kind: "deleteField", ws: 0, field: 0 },
  { kind: "defineField", ws: 0, field: 0, type: "number" },
  { kind: "createKey", ws: 0, key: 0 },
  { kind: "createKey", ws: 1, key: 1 },
  { kind: "revokeKey", key: 0 },
  { kind: "deleteContact", ws: 0, target: 0 },
  { kind: "tick", millis: DAY },
  { kind: "purge", millis: 31 * DAY },
  { kind: "createContact", ws: 1, body: { email: "ann0@x.io" } },
  { kind: "deleteDeal", ws: 0, target: 0 }
]

// ---------------------------------------------------------------- running

/** An engine of its own (no webhook sending) on the given storage. */
export const engineOn = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.map(
    Layer.build(
      EngineLive.pipe(
        Layer.provide(Layer.succeed(Storage, storage)),
        Layer.provide(Layer.succeed(DeliveryQueue, queue)),
        Layer.provide(IdsLive),
        Layer.provide(noWebhookSending)
      )
    ),
    (context) => Context.get(context, Engine)
  )

let runs = 0

/** Names of one run: workspaces and key digests no other run uses, so runs can share a database. */
const runNames = () => {
  const tag = `${Date.now().toString(36)}${(++runs).toString(36)}`
  return {
    workspaces: [`rb_${tag}_a`, `rb_${tag}_b`] as const,
    digest: (n: number) => createHash("sha256").update(`${tag}:${n}`).digest("hex")
  }
}

type Names = ReturnType<typeof runNames>

const refusals = ["NotFound", "ValidationError", "Conflict", "PreconditionFailed"] as const

/** A refused command is part of the test (it must change nothing); anything else fails it. */
const allowRefusal = <A, E extends { readonly _tag: string }, R>(call: Effect.Effect<A, E, R>) =>
  call.pipe(
    Effect.map((ok): A | null => ok),
    Effect.catchIf((error) => (refusals as ReadonlyArray<string>).includes(error._tag), () => Effect.succeed(null))
  )

const pick = (ids: ReadonlyArray<string>, n: number) => ids.length === 0 ? "con_none" : ids[n % ids.length]!
/** Contacts to associate: none while the workspace has none (an unknown id is refused, and said so elsewhere). */
const pickAll = (ids: ReadonlyArray<string>, ns: ReadonlyArray<number>) => ids.length === 0 ? [] : ns.map((n) => pick(ids, n))

/** Runs the commands through the engine, on TestClock. */
const runCommands = (engine: EngineService, names: Names, commands: ReadonlyArray<Command>) =>
  Effect.gen(function*() {
    const ctxs: ReadonlyArray<RequestContext> = names.workspaces.map((workspaceId) => ({ workspaceId, requestId: null, actor: "prop" }))
    const contacts: Array<Array<string>> = [[], []]
    const deals: Array<Array<string>> = [[], []]
    // What was last deleted, so that restores and purges find something to act on.
    const deletedContacts: Array<Array<string>> = [[], []]
    const deletedDeals: Array<Array<string>> = [[], []]
    const accepted: Record<string, number> = {}
    /** Runs a command that may be refused, counting the accepted ones. */
    const tally = <A, E extends { readonly _tag: string }>(kind: Command["kind"], call: Effect.Effect<A, E>) =>
      Effect.tap(allowRefusal(call), (ok) =>
        Effect.sync(() => {
          if (ok !== null) accepted[kind] = (accepted[kind] ?? 0) + 1
        }))

    const pipelinesOf = (ctx: RequestContext) =>
      Effect.map(engine.pipelines.list(ctx), (page) =>
        page.data.map((p) => ({
          id: p["id"] as string,
          name: p["name"] as string,
          stages: (p["stages"] as ReadonlyArray<JsonObject>).map((s) => ({ id: s["id"] as string, name: s["name"] as string }))
        })))

    for (const cmd of commands) {
      const ctx = "ws" in cmd ? ctxs[cmd.ws]! : ctxs[0]!
      const i = "ws" in cmd ? cmd.ws : 0
      switch (cmd.kind) {
        case "tick":
          yield* TestClock.adjust(cmd.millis)
          break
        case "purge": {
          yield* TestClock.adjust(cmd.millis)
          const purged = yield* engine.purgeExpired
          accepted["purged"] = (accepted["purged"] ?? 0) + purged
          // A month later most deletions are purged: restores go back to picking at random.
          if (cmd.millis > 0) for (const list of [...deletedContacts, ...deletedDeals]) list.length = 0
          break
        }
        case "defineField": {
          const { key, object } = fields[cmd.field]!
          yield* tally(cmd.kind, engine.customFields.create(ctx, { object, key, label: key, type: cmd.type }))
          break
        }
        case "deleteField": {
          const { key, object } = fields[cmd.field]!
          yield* tally(cmd.kind, engine.customFields.delete(ctx, object, key))
          break
        }
        case "createContact": {
          const created = yield* tally(cmd.kind, engine.contacts.create(ctx, cmd.body))
          if (created !== null) contacts[i]!.push(created.data["id"] as string)
          break
        }
        case "updateContact":
          yield* tally(cmd.kind, engine.contacts.update(ctx, pick(contacts[i]!, cmd.target), cmd.body, null))
          break
        case "deleteContact": {
          const id = pick(contacts[i]!, cmd.target)
          if ((yield* tally(cmd.kind, engine.contacts.delete(ctx, id, null))) !== null) deletedContacts[i]!.push(id)
          break
        }
        case "restoreContact": {
          // Mostly the latest deletion, sometimes any record (a live one is refused).
          const id = cmd.target % 4 !== 0 && deletedContacts[i]!.length > 0 ? deletedContacts[i]!.at(-1)! : pick(contacts[i]!, cmd.target)
          if ((yield* tally(cmd.kind, engine.contacts.restore(ctx, id))) !== null) deletedContacts[i] = deletedContacts[i]!.filter((d) => d !== id)
          break
        }
        case "createDeal": {
          const pipelines = yield* pipelinesOf(ctx)
          const pipeline = pipelines[cmd.pipeline % pipelines.length]
          const stages = pipelines.flatMap((p) => p.stages)
          const body: Body = {
            name: "Deal",
            ...cmd.body,
            pipeline_id: pipeline?.id ?? "pipe_none",
            contact_ids: pickAll(contacts[i]!, cmd.contacts),
            ...(cmd.stage === null || stages.length === 0 ? {} : { stage_id: stages[cmd.stage % stages.length]!.id })
          }
          const created = yield* tally(cmd.kind, engine.deals.create(ctx, body))
          if (created !== null) deals[i]!.push(created.data["id"] as string)
          break
        }
        case "updateDeal": {
          const pipelines = yield* pipelinesOf(ctx)
          const stages = pipelines.flatMap((p) => p.stages)
          const body: Body = {
            ...cmd.body,
            ...(cmd.contacts === null ? {} : { contact_ids: pickAll(contacts[i]!, cmd.contacts) }),
            ...(cmd.pipeline === null || pipelines.length === 0 ? {} : { pipeline_id: pipelines[cmd.pipeline % pipelines.length]!.id }),
            ...(cmd.stage === null || stages.length === 0 ? {} : { stage_id: stages[cmd.stage % stages.length]!.id })
          }
          yield* tally(cmd.kind, engine.deals.update(ctx, pick(deals[i]!, cmd.target), body, null))
          break
        }
        case "moveStage": {
          const stages = (yield* pipelinesOf(ctx)).flatMap((p) => p.stages)
          const body = { stage_id: stages[cmd.stage % Math.max(stages.length, 1)]?.id ?? "stage_none", reason: cmd.reason }
          yield* tally(cmd.kind, engine.deals.moveStage(ctx, pick(deals[i]!, cmd.target), body, null))
          break
        }
        case "deleteDeal": {
          const id = pick(deals[i]!, cmd.target)
          if ((yield* tally(cmd.kind, engine.deals.delete(ctx, id, null))) !== null) deletedDeals[i]!.push(id)
          break
        }
        case "restoreDeal": {
          // Mostly the latest deletion, sometimes any record (a live one is refused).
          const id = cmd.target % 4 !== 0 && deletedDeals[i]!.length > 0 ? deletedDeals[i]!.at(-1)! : pick(deals[i]!, cmd.target)
          if ((yield* tally(cmd.kind, engine.deals.restore(ctx, id))) !== null) deletedDeals[i] = deletedDeals[i]!.filter((d) => d !== id)
          break
        }
        case "createPipeline": {
          const stages = Array.from({ length: cmd.stages }, (_, n) => ({ name: `${cmd.name} ${n}` }))
          yield* tally(cmd.kind, engine.pipelines.create(ctx, { name: cmd.name, stages }))
          break
        }
        case "updatePipeline": {
          const pipelines = yield* pipelinesOf(ctx)
          const pipeline = pipelines[cmd.target % pipelines.length]
          if (pipeline === undefined) break
          const stages = pipeline.stages.map((s) => ({ id: s.id, name: s.name }))
          const body = cmd.change === "rename"
            ? { name: `${pipeline.name}!` }
            : cmd.change === "append"
            ? { stages: [...stages, { name: "Later" }] }
            : cmd.change === "reverse"
            ? { stages: stages.reverse() }
            : { stages: stages.slice(0, -1) }
          yield* tally(cmd.kind, engine.pipelines.update(ctx, pipeline.id, body, null))
          break
        }
        case "createKey":
          yield* tally(cmd.kind, engine.apiKeys.create({ workspaceId: ctx.workspaceId, keySha256: names.digest(cmd.key), actor: "prop" }))
          break
        case "revokeKey":
          yield* tally(cmd.kind, engine.apiKeys.revoke({ keyId: apiKeyIdOf(names.digest(cmd.key)), actor: "prop" }))
          break
      }
      // Distinct instants, so that nothing depends on two commands sharing a millisecond.
      yield* TestClock.adjust(1)
    }
    return accepted
  })

// ---------------------------------------------------------------- comparing

const projected: ReadonlyArray<Collection> = ["contact", "deal", "timeline_entry", "pipeline"]

/** Every document of these workspaces in the collections rebuild writes, live and in the trash. */
const projectedDocuments = (storage: StorageService, workspaceIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const out: Record<string, ReadonlyArray<StoredDocument>> = {}
    for (const workspaceId of workspaceIds) {
      for (const collection of projected) {
        for (const scope of ["live", "deleted"] as const) {
          out[`${workspaceId} ${collection} ${scope}`] = yield* storage.queryDocuments(collection, workspaceId, {
            where: { _tag: "True" },
            scope,
            sort: { field: { name: "id", type: "id" }, direction: "asc" },
            after: null,
            limit: 10_000
          })
        }
      }
    }
    return out
  })

/** The API key documents of these workspaces as storage holds them, by document id (the digest). */
const storedApiKeys = (storage: StorageService, workspaceIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const out: Array<StoredDocument> = []
    for (const scope of ["live", "deleted"] as const) {
      const rows = yield* storage.queryDocuments("api_key", SYSTEM_WORKSPACE, {
        where: { _tag: "True" },
        scope,
        sort: { field: { name: "id", type: "id" }, direction: "asc" },
        after: null,
        limit: 10_000
      })
      out.push(...rows.filter((doc) => workspaceIds.includes(doc.data["workspace_id"] as string)))
    }
    return out.sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  })

const readWholeLog = (storage: StorageService) =>
  Effect.gen(function*() {
    const out: Array<StoredEvent> = []
    for (;;) {
      const batch = yield* storage.readLog({ after: out[out.length - 1]?.sequence ?? 0, limit: 5_000 })
      out.push(...batch)
      if (batch.length < 5_000) return out
    }
  })

/**
 * The API key documents the log says these workspaces have. `rebuildDocuments` leaves the api_key
 * collection alone, so this folds the keys' streams with their projection, the way rebuild folds
 * the others: a key document must be exactly what its events project to.
 */
const apiKeysFromLog = (storage: StorageService, workspaceIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const streams = new Map<string, Array<StoredEvent>>()
    for (const event of yield* readWholeLog(storage)) {
      if (!event.type.startsWith("api_key.")) continue
      streams.set(event.streamId, [...streams.get(event.streamId) ?? [], event])
    }
    const out: Array<StoredDocument> = []
    for (const stored of streams.values()) {
      const events = stored as unknown as ReadonlyArray<ApiKeyEvent>
      const doc = events.reduce<Projected | null>(projectApiKey, null)
      const created = events.find((e) => e.type === "api_key.created")
      if (doc === null || created === undefined || !workspaceIds.includes(doc.data["workspace_id"] as string)) continue
      out.push({
        collection: "api_key",
        workspaceId: SYSTEM_WORKSPACE,
        id: created.data.key_sha256,
        version: stored.length,
        deletedAt: doc.deletedAt,
        data: doc.data
      })
    }
    return out.sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  })

const keyOf = (doc: StoredDocument) => `${doc.collection} ${doc.workspaceId} ${doc.id}`

/** Equal lists, and when they are not, the first few documents that differ in the message. */
const expectSame = (what: string, stored: ReadonlyArray<StoredDocument>, rebuilt: ReadonlyArray<StoredDocument>) => {
  const fromLog = new Map(rebuilt.map((doc) => [keyOf(doc), doc]))
  const fromCommands = new Map(stored.map((doc) => [keyOf(doc), doc]))
  const differences = [...new Set([...fromCommands.keys(), ...fromLog.keys()])]
    .map((key) => ({ key, stored: fromCommands.get(key) ?? null, rebuilt: fromLog.get(key) ?? null }))
    // Not by JSON text: PostgreSQL's jsonb does not keep key order.
    .filter((d) => !isDeepStrictEqual(d.stored, d.rebuilt))
  expect(differences, `${what} stored by the commands differ from the rebuild: ${JSON.stringify(differences.slice(0, 2))}`)
    .toEqual([])
  // And in the same order (id order within each collection and scope), which the above ignores.
  expect(stored).toEqual(rebuilt)
}

/**
 * One case of the property: the commands on a fresh engine over `storage`, then what storage holds
 * against a rebuild from the log (which replaces the projected collections of every workspace).
 */
export const storedEqualsRebuilt = (storage: StorageService, queue: DeliveryQueueService, commands: ReadonlyArray<Command>) =>
  Effect.gen(function*() {
    const names = runNames()
    const engine = yield* engineOn(storage, queue)
    const accepted = yield* runCommands(engine, names, commands)

    const stored = yield* projectedDocuments(storage, names.workspaces)
    const keys = yield* storedApiKeys(storage, names.workspaces)
    yield* rebuildDocuments().pipe(Effect.provideService(Storage, storage))
    const rebuilt = yield* projectedDocuments(storage, names.workspaces)

    expectSame("documents", Object.values(stored).flat(), Object.values(rebuilt).flat())
    expectSame("API keys", keys, yield* apiKeysFromLog(storage, names.workspaces))
    const all = Object.entries(stored).flatMap(([, docs]) => docs)
    return {
      ...accepted,
      timelineEntries: all.filter((d) => d.collection === "timeline_entry").length,
      inTrash: all.filter((d) => d.deletedAt !== null).length,
      revokedKeys: keys.filter((d) => d.data["revoked_at"] !== null).length
    }
  }).pipe(Effect.scoped)

/** Adds up what the runs did, to show the commands were accepted often enough to mean something. */
export const coverage = () => {
  const totals: Record<string, number> = {}
  return {
    add: (counts: Record<string, number>) => {
      for (const [kind, n] of Object.entries(counts)) totals[kind] = (totals[kind] ?? 0) + n
    },
    /** Every command kind was accepted, and every outcome a rebuild must reproduce happened, in some run. */
    check: () => {
      const wanted = [
        "defineField", "deleteField", "createContact", "updateContact", "deleteContact", "restoreContact",
        "createDeal", "updateDeal", "moveStage", "deleteDeal", "restoreDeal", "createPipeline", "updatePipeline",
        "createKey", "revokeKey", "purged", "timelineEntries", "inTrash", "revokedKeys"
      ]
      expect(wanted.filter((kind) => (totals[kind] ?? 0) === 0)).toEqual([])
      return totals
    }
  }
}
