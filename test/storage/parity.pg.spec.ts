import {
  type Collection,
  type DocumentQuery,
  type DocumentWrite,
  Engine,
  EngineLive,
  type EngineService,
  type Expr,
  IdsLive,
  type Json,
  type JsonObject,
  type ListParams,
  type RequestContext,
  searchWordsOfDocument,
  DeliveryQueue,
  type DeliveryQueueService,
  Storage,
  type StorageService,
  type StoredDocument
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, type Duration, Effect, Layer, Random } from "effect"
import * as fc from "fast-check"
import { pgStorageLayer } from "../support/pg.js"
import { noWebhookSending } from "../support/engine.js"

/**
 * The same random command sequence, applied through the engine to memory storage (the reference)
 * and to PostgreSQL, gives the same responses, the same documents and the same pages for random
 * list queries.
 *
 * Ids are made equal rather than compared modulo renaming: the two engines run in lockstep on one
 * manual clock, and each has its own Random seeded alike, so IdsLive (time + random) hands both
 * the same ids in the same order, and every response, cursor included, can be compared as is.
 */

// ---------------------------------------------------------------- values

// Case and Unicode variants that JavaScript's toLowerCase folds but PostgreSQL's lower() (ICU 60
// in the embedded build, ASCII only under COLLATE "C") would not all fold alike: Georgian
// Mtavruli, final sigma, dotted I, ß, titlecase digraphs, astral characters.
const texts = [
  "Ann",
  "ann",
  "ANN",
  "Ängel",
  "ängel",
  "ΣΑΣ",
  "σας",
  "Straße",
  "STRASSE",
  "İstanbul",
  "istanbul",
  "ᲐᲑᲒ",
  "აბგ",
  "ǅemal",
  "😀 smile",
  "a-b c",
  "Zoë",
  "zz"
]
const email = fc
  .tuple(fc.constantFrom("ann", "Ann", "bob", "BOB", "cleo", "zoe"), fc.nat(3), fc.constantFrom("x.io", "X.io", "y.io"))
  .map(([name, n, domain]) => `${name}${n}@${domain}`)
const numbers = [-1, 0, 1.5, 10, 250, 1e21]
const dates = ["2025-01-01", "2025-12-31", "2026-06-30"]
// Pieces of the texts above, in other cases: what Contains and StartsWith must find case-insensitively.
const fragments = ["an", "AN", "äng", "ÄNG", "σ", "Σας", "ς", "ss", "ß", "i̇", "İ", "აბ", "ᲐᲑ", "ǆ", "ǅ", "Ǆ", "😀", "-b", "zz", "@x", "1@X"]
const searchTerms = ["ann", "än", "σα", "აბ", "str", "ǆ", "a", "x.io", "ann1@x.io", "😀", "zo", "b", "istanbul", "i̇"]
const customFields = [
  { object: "contact", key: "nick", type: "text" },
  { object: "contact", key: "score", type: "number" },
  { object: "contact", key: "vip", type: "boolean" },
  { object: "contact", key: "due", type: "date" },
  { object: "deal", key: "region", type: "text" },
  { object: "deal", key: "prob", type: "number" }
] as const

const maybe = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: null, freq: 4 })
const text = fc.constantFrom(...texts)
const optionalFields = <A extends Record<string, fc.Arbitrary<unknown>>>(fields: A) => fc.record(fields, { requiredKeys: [] })

const contactFields = {
  email,
  first_name: maybe(text),
  last_name: maybe(text),
  title: maybe(text),
  nick: maybe(text),
  score: maybe(fc.constantFrom(...numbers)),
  vip: maybe(fc.boolean()),
  due: maybe(fc.constantFrom(...dates))
}
const newContact = optionalFields(contactFields).chain((body) => email.map((address) => ({ email: address, ...body })))
const contactPatch = optionalFields(contactFields)

const dealBody = optionalFields({
  name: text,
  value: maybe(fc.constantFrom(...numbers)),
  expected_close_date: maybe(fc.constantFrom(...dates)),
  region: maybe(text),
  prob: maybe(fc.constantFrom(...numbers))
})

// ---------------------------------------------------------------- commands

type Command =
  | { readonly kind: "createContact"; readonly body: Record<string, unknown> }
  | { readonly kind: "updateContact"; readonly target: number; readonly body: Record<string, unknown> }
  | { readonly kind: "deleteContact" | "restoreContact"; readonly target: number }
  | {
      readonly kind: "createDeal"
      readonly body: Record<string, unknown>
      readonly contacts: ReadonlyArray<number>
      readonly stage: number | null
    }
  | {
      readonly kind: "updateDeal"
      readonly target: number
      readonly body: Record<string, unknown>
      readonly contacts: ReadonlyArray<number> | null
    }
  | { readonly kind: "moveStage"; readonly target: number; readonly stage: number }
  | { readonly kind: "deleteDeal" | "restoreDeal"; readonly target: number }
  | { readonly kind: "tick"; readonly millis: number }

const target = fc.nat(20)
const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("createContact" as const), body: newContact }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant("updateContact" as const), target, body: contactPatch }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constantFrom("deleteContact" as const, "restoreContact" as const), target }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant("createDeal" as const),
      body: dealBody,
      contacts: fc.array(target, { maxLength: 3 }),
      stage: maybe(fc.nat(5))
    }),
    weight: 5
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("updateDeal" as const),
      target,
      body: dealBody,
      contacts: maybe(fc.array(target, { maxLength: 3 }))
    }),
    weight: 2
  },
  { arbitrary: fc.record({ kind: fc.constant("moveStage" as const), target, stage: fc.nat(5) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constantFrom("deleteDeal" as const, "restoreDeal" as const), target }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("tick" as const), millis: fc.integer({ min: 0, max: 3 * 86_400_000 }) }), weight: 3 }
)

// ---------------------------------------------------------------- queries

type Resource = "contact" | "deal"
const filterFields: Record<
  Resource,
  ReadonlyArray<readonly [string, "text" | "number" | "boolean" | "date" | "timestamp" | "id" | "enum"]>
> = {
  contact: [
    ["email", "text"],
    ["first_name", "text"],
    ["last_name", "text"],
    ["title", "text"],
    ["created_at", "timestamp"],
    ["nick", "text"],
    ["score", "number"],
    ["vip", "boolean"],
    ["due", "date"]
  ],
  deal: [
    ["name", "text"],
    ["value", "number"],
    ["status", "enum"],
    ["expected_close_date", "date"],
    ["created_at", "timestamp"],
    ["region", "text"],
    ["prob", "number"]
  ]
}
const sortFields: Record<Resource, ReadonlyArray<string>> = {
  contact: ["email", "first_name", "last_name", "created_at", "updated_at", "nick", "score", "vip", "due"],
  deal: ["name", "value", "expected_close_date", "created_at", "updated_at", "region", "prob"]
}
const timestamps = ["2026-01-01T00:00:00.000Z", "2026-01-02T12:00:00.000Z", "2026-01-05T00:00:00.000Z"]

const operandOf = (type: string): fc.Arbitrary<Json> => {
  switch (type) {
    case "number":
      return fc.constantFrom(...numbers)
    case "boolean":
      return fc.boolean()
    case "date":
      return fc.constantFrom(...dates)
    case "timestamp":
      return fc.constantFrom(...timestamps)
    case "enum":
      return fc.constantFrom("open", "won", "lost")
    default:
      return fc.oneof(fc.constantFrom(...texts), email)
  }
}

const clauseOf = (resource: Resource): fc.Arbitrary<JsonObject> =>
  fc.constantFrom(...filterFields[resource]).chain(([name, type]) => {
    const ordered = type !== "boolean" && type !== "enum"
    const ops = [
      "$eq",
      "$ne",
      "$exists",
      "$in",
      ...(ordered ? ["$gt", "$gte", "$lt", "$lte"] : []),
      ...(type === "text" ? ["$contains", "$starts_with"] : [])
    ]
    return fc.constantFrom(...ops).chain((op) => {
      const operand: fc.Arbitrary<Json> =
        op === "$contains" || op === "$starts_with"
          ? fc.constantFrom(...fragments)
          : op === "$exists"
            ? fc.boolean()
            : op === "$in"
              ? fc.array(operandOf(type), { minLength: 1, maxLength: 3 })
              : operandOf(type)
      return operand.map((value): JsonObject => ({ [name]: { [op]: value } }))
    })
  })

const filterOf = (resource: Resource): fc.Arbitrary<JsonObject> =>
  fc.oneof(
    clauseOf(resource),
    fc.array(clauseOf(resource), { minLength: 2, maxLength: 3 }).map((all): JsonObject => ({ $or: all })),
    clauseOf(resource).map((one): JsonObject => ({ $not: one })),
    fc.array(clauseOf(resource), { minLength: 2, maxLength: 3 }).map((all): JsonObject => Object.assign({}, ...all))
  )

interface Query {
  readonly resource: Resource
  readonly filter: JsonObject | null
  readonly search: ReadonlyArray<string> | null
  readonly sort: string | null
  readonly limit: number
  /** Deals only: `?contact_id=` of this created contact. */
  readonly contact: number | null
}

// Mostly without: each filter or search term alone already leaves few rows of a small workspace.
const sometimes = <A>(arb: fc.Arbitrary<A>) => fc.oneof({ arbitrary: fc.constant(null), weight: 2 }, { arbitrary: arb, weight: 1 })

const queryOf = (resource: Resource): fc.Arbitrary<Query> =>
  fc.record({
    resource: fc.constant(resource),
    filter: sometimes(filterOf(resource)),
    search: sometimes(fc.array(fc.constantFrom(...searchTerms), { minLength: 1, maxLength: 2 })),
    sort: maybe(fc.tuple(fc.constantFrom(...sortFields[resource]), fc.boolean()).map(([f, desc]) => (desc ? `-${f}` : f))),
    limit: fc.integer({ min: 1, max: 4 }),
    contact: resource === "deal" ? sometimes(target) : fc.constant(null)
  })

const query: fc.Arbitrary<Query> = fc.oneof(queryOf("contact"), queryOf("deal"))

// ---------------------------------------------------------------- running

/** A clock that moves only when told, shared by both engines so both see the same instants. */
const manualClock = (start: number) => {
  let now = start
  const real = Clock.Clock.defaultValue()
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: () => now,
    currentTimeMillis: Effect.sync(() => now),
    currentTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
    monotonicTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
    sleep: (duration: Duration.Duration) => real.sleep(duration)
  }
  return {
    clock,
    advance: (millis: number) => {
      now += millis
    }
  }
}

type Outcome = { readonly ok: unknown } | { readonly error: unknown }

interface Side {
  readonly engine: EngineService
  readonly storage: StorageService
  readonly random: Random.Random
}

/** A generator of its own, seeded: the same seed gives the same sequence, drawn across calls. */
const seededRandom = (seed: number) =>
  Effect.gen(function* () {
    return yield* Random.Random
  }).pipe(Random.withSeed(seed))

// Layer.fresh: Effect 4 memoizes layers across builds in one fiber tree, and each side must be an
// engine of its own over its own storage.
const engineOn = (storage: StorageService, queue: DeliveryQueueService, seed: number) =>
  Effect.all({
    context: Layer.build(
      Layer.fresh(
        EngineLive.pipe(
          Layer.provide(Layer.succeed(Storage, storage)),
          Layer.provide(Layer.succeed(DeliveryQueue, queue)),
          Layer.provide(IdsLive),
          Layer.provide(noWebhookSending)
        )
      )
    ),
    random: seededRandom(seed)
  }).pipe(Effect.map(({ context, random }): Side => ({ engine: Context.get(context, Engine), storage, random })))

let runs = 0

const documentsOf = (storage: StorageService, workspaceId: string) =>
  Effect.gen(function* () {
    const out: Array<StoredDocument> = []
    for (const collection of ["contact", "deal", "timeline_entry", "pipeline"] as ReadonlyArray<Collection>) {
      for (const scope of ["live", "deleted"] as const) {
        out.push(
          ...(yield* storage.queryDocuments(collection, workspaceId, {
            where: { _tag: "True" },
            scope,
            sort: { field: { name: "id", type: "id" }, direction: "asc" },
            after: null,
            limit: 10_000
          }))
        )
      }
    }
    return out
  })

const runBoth = (commands: ReadonlyArray<Command>, queries: ReadonlyArray<Query>) =>
  Effect.gen(function* () {
    const pgStorage = yield* Storage
    const pgQueue = yield* DeliveryQueue
    const seed = ++runs
    const ctx: RequestContext = { workspaceId: `ws_parity_${Date.now().toString(36)}_${seed}`, requestId: null, actor: "parity" }
    const { advance, clock } = manualClock(Date.parse("2026-01-01T00:00:00.000Z"))
    const inMemory = yield* MemoryStorage.makeWithQueue
    const memory = yield* engineOn(inMemory.storage, inMemory.queue, seed)
    const postgres = yield* engineOn(pgStorage, pgQueue, seed)

    /** Runs one engine call on both sides at the same instant and insists on the same outcome. */
    const both = <A>(what: string, call: (engine: EngineService) => Effect.Effect<A, unknown>) =>
      Effect.gen(function* () {
        const outcome = (side: Side) =>
          call(side.engine).pipe(
            Effect.provideService(Clock.Clock, clock),
            Effect.provideService(Random.Random, side.random),
            Effect.match({
              onSuccess: (ok): Outcome => ({ ok }),
              onFailure: (error): Outcome => ({ error: JSON.parse(JSON.stringify(error)) })
            })
          )
        const expected = yield* outcome(memory)
        const actual = yield* outcome(postgres)
        expect({ what, outcome: actual }).toEqual({ what, outcome: expected })
        return "ok" in expected ? (expected.ok as A) : null
      })

    const pipelines = yield* both("pipelines", (e) => e.pipelines.list(ctx))
    const pipeline = pipelines?.data[0]
    const pipelineId = pipeline?.["id"] as string
    const stages = ((pipeline?.["stages"] ?? []) as ReadonlyArray<JsonObject>).map((s) => s["id"] as string)
    for (const def of customFields) yield* both("define", (e) => e.customFields.create(ctx, { ...def, label: def.key }))
    const contacts: Array<string> = []
    const deals: Array<string> = []
    const pick = (ids: ReadonlyArray<string>, n: number) => (ids.length === 0 ? "none" : ids[n % ids.length]!)

    for (const cmd of commands) {
      switch (cmd.kind) {
        case "tick":
          advance(cmd.millis)
          break
        case "createContact": {
          const created = yield* both("create contact", (e) => e.contacts.create(ctx, cmd.body))
          if (created !== null) contacts.push(created.data["id"] as string)
          break
        }
        case "updateContact":
          yield* both("update contact", (e) => e.contacts.update(ctx, pick(contacts, cmd.target), cmd.body, null))
          break
        case "deleteContact":
          yield* both("delete contact", (e) => e.contacts.delete(ctx, pick(contacts, cmd.target), null))
          break
        case "restoreContact":
          yield* both("restore contact", (e) => e.contacts.restore(ctx, pick(contacts, cmd.target)))
          break
        case "createDeal": {
          const body = {
            name: "Deal",
            ...cmd.body,
            pipeline_id: pipelineId,
            contact_ids: [...new Set(cmd.contacts.map((n) => pick(contacts, n)))],
            ...(cmd.stage === null ? {} : { stage_id: stages[cmd.stage] })
          }
          const created = yield* both("create deal", (e) => e.deals.create(ctx, body))
          if (created !== null) deals.push(created.data["id"] as string)
          break
        }
        case "updateDeal": {
          const body =
            cmd.contacts === null ? cmd.body : { ...cmd.body, contact_ids: [...new Set(cmd.contacts.map((n) => pick(contacts, n)))] }
          yield* both("update deal", (e) => e.deals.update(ctx, pick(deals, cmd.target), body, null))
          break
        }
        case "moveStage":
          yield* both("move stage", (e) => e.deals.moveStage(ctx, pick(deals, cmd.target), { stage_id: stages[cmd.stage] }, null))
          break
        case "deleteDeal":
          yield* both("delete deal", (e) => e.deals.delete(ctx, pick(deals, cmd.target), null))
          break
        case "restoreDeal":
          yield* both("restore deal", (e) => e.deals.restore(ctx, pick(deals, cmd.target)))
          break
      }
      advance(1)
    }

    const expectedDocs = yield* documentsOf(memory.storage, ctx.workspaceId)
    const actualDocs = yield* documentsOf(postgres.storage, ctx.workspaceId)
    expect(actualDocs).toEqual(expectedDocs)

    for (const q of queries) {
      const params: Record<string, string> = { limit: String(q.limit) }
      if (q.filter !== null) params["filter"] = JSON.stringify(q.filter)
      if (q.search !== null) params["search"] = q.search.join(" ")
      if (q.sort !== null) params["sort"] = q.sort
      if (q.contact !== null) params["contact_id"] = pick(contacts, q.contact)
      // Every page, following the cursors, until the end (or a bound that a bug could loop past).
      for (let n = 0; n < 60; n++) {
        const current: ListParams = { ...params }
        const page = yield* both(`${q.resource} list ${JSON.stringify(current)}`, (e) =>
          q.resource === "contact" ? e.contacts.list(ctx, current) : e.deals.list(ctx, current)
        )
        if (page === null || page.next_cursor === null) break
        params["cursor"] = page.next_cursor
      }
    }
    for (const type of ["contact", "deal"]) {
      yield* both(`trash ${type}`, (e) => e.trash.list(ctx, { type, limit: "3" }))
    }
    for (const deal of deals.slice(0, 3)) {
      yield* both(`timeline ${deal}`, (e) => e.deals.timeline(ctx, deal, {}))
    }
    // A GET reads the document, the deals naming the contact and the settings version in one
    // storage call (readRecord), answered by each storage its own way; deleted ones are 404 on both.
    for (const contact of contacts) {
      yield* both(`get ${contact}`, (e) => e.contacts.get(ctx, contact, null))
    }
  }).pipe(Effect.scoped)

describe("memory and PostgreSQL agree", () => {
  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect(
      "on responses, documents and every page of random queries after random commands",
      () =>
        Effect.gen(function* () {
          const context = yield* Effect.context<Storage | DeliveryQueue>()
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(
                fc.array(command, { minLength: 5, maxLength: 40, size: "max" }),
                fc.array(query, { minLength: 1, maxLength: 8 }),
                async (commands, queries) => {
                  await Effect.runPromiseWith(context)(runBoth(commands, queries))
                }
              ),
              { numRuns: 40, endOnFailure: false }
            )
          )
        }),
      110_000
    )
  })
})

// ---------------------------------------------------------------- text semantics, storage level

// Characters whose case mapping or order differs between JavaScript and PostgreSQL's own
// functions: final sigma, dotted/dotless i, ß, titlecase digraphs, Georgian Mtavruli (Unicode 11,
// unknown to the embedded ICU 60), a combining mark, an astral character (UTF-16 puts it before
// U+FF21, code point order after) and fullwidth letters.
const alphabet = [
  "a",
  "A",
  "b",
  "Z",
  "ä",
  "Ä",
  "σ",
  "Σ",
  "ς",
  "ß",
  "S",
  "s",
  "İ",
  "i",
  "I",
  "ı",
  "Ა",
  "ა",
  "ǅ",
  "ǆ",
  "Ǆ",
  "😀",
  "\u0301",
  "e",
  "Ａ",
  "ａ",
  "-",
  " ",
  "1"
]
const word = fc.array(fc.constantFrom(...alphabet), { maxLength: 5 }).map((chars) => chars.join(""))
const nameField = { name: "name", type: "text" } as const
const searchFields = { fields: [nameField], wholeWordFields: [] }

/** Operands: random words, or a piece of a stored name in another case, so that matches happen. */
const operandFrom = (names: ReadonlyArray<string | null>): fc.Arbitrary<string> => {
  const stored = names.filter((n): n is string => n !== null && n !== "")
  if (stored.length === 0) return word
  const piece = fc
    .tuple(fc.constantFrom(...stored), fc.nat(5), fc.nat(5), fc.constantFrom("as is", "upper", "lower"))
    .map(([name, from, length, change]) => {
      const cut = [...name].slice(from % name.length, (from % name.length) + 1 + length).join("")
      return change === "upper" ? cut.toUpperCase() : change === "lower" ? cut.toLowerCase() : cut
    })
  return fc.oneof({ arbitrary: piece, weight: 3 }, { arbitrary: word, weight: 1 })
}

const whereFrom = (names: ReadonlyArray<string | null>): fc.Arbitrary<Expr> => {
  const operand = operandFrom(names)
  const leaf: fc.Arbitrary<Expr> = fc.oneof(
    operand.map((value): Expr => ({ _tag: "Contains", field: nameField, value })),
    operand.map((value): Expr => ({ _tag: "StartsWith", field: nameField, value })),
    fc
      .tuple(fc.constantFrom("eq" as const, "ne" as const, "gt" as const, "gte" as const, "lt" as const, "lte" as const), operand)
      .map(([op, value]): Expr => ({ _tag: "Compare", field: nameField, op, value })),
    fc.array(operand, { minLength: 1, maxLength: 3 }).map((values): Expr => ({ _tag: "In", field: nameField, values })),
    fc
      .array(
        operand.map((t) => t.toLowerCase()).filter((t) => t.trim() === t && t.length > 0),
        { minLength: 1, maxLength: 2 }
      )
      .map((terms): Expr => ({ _tag: "Search", ...searchFields, terms }))
  )
  return fc.oneof(
    { arbitrary: leaf, weight: 3 },
    { arbitrary: leaf.map((expr): Expr => ({ _tag: "Not", expr })), weight: 1 },
    { arbitrary: fc.array(leaf, { minLength: 2, maxLength: 3 }).map((exprs): Expr => ({ _tag: "Or", exprs })), weight: 1 }
  )
}

const textCase = fc.array(fc.option(word, { nil: null, freq: 6 }), { minLength: 1, maxLength: 12 }).chain((names) =>
  fc.tuple(
    fc.constant(names),
    fc.array(fc.tuple(whereFrom(names), fc.constantFrom("asc" as const, "desc" as const), fc.integer({ min: 1, max: 4 })), {
      minLength: 1,
      maxLength: 4
    })
  )
)

const pagesOf = (storage: StorageService, workspaceId: string, query: Omit<DocumentQuery, "after">) =>
  Effect.gen(function* () {
    const pages: Array<ReadonlyArray<StoredDocument>> = []
    let after: DocumentQuery["after"] = null
    for (let n = 0; n < 40; n++) {
      const rows: ReadonlyArray<StoredDocument> = yield* storage.queryDocuments("contact", workspaceId, { ...query, after })
      pages.push(rows)
      const last = rows[rows.length - 1]
      if (last === undefined || rows.length < query.limit) break
      const value = last.data["name"]
      after = { value: typeof value === "string" ? value : null, id: last.id }
    }
    return pages
  })

describe("memory and PostgreSQL agree on text", () => {
  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect(
      "case-insensitive matching, search words and code point order, page by page",
      () =>
        Effect.gen(function* () {
          const context = yield* Effect.context<Storage | DeliveryQueue>()
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(textCase, async ([names, queries]) => {
                await Effect.runPromiseWith(context)(
                  Effect.gen(function* () {
                    const postgres = yield* Storage
                    const memory = yield* MemoryStorage.make
                    const workspaceId = `ws_text_${Date.now().toString(36)}_${++runs}`
                    const documents = names.map((name, i): DocumentWrite => {
                      const data: JsonObject = name === null ? { id: `con_${i}` } : { id: `con_${i}`, name }
                      return {
                        _tag: "Upsert",
                        collection: "contact",
                        workspaceId,
                        id: `con_${i}`,
                        version: 1,
                        deletedAt: null,
                        uniqueKey: null,
                        searchWords: searchWordsOfDocument(data, searchFields),
                        data
                      }
                    })
                    yield* memory.commit({ streams: [], documents })
                    yield* postgres.commit({ streams: [], documents })
                    for (const [expr, direction, limit] of queries) {
                      const query = { where: expr, scope: "live" as const, sort: { field: nameField, direction }, limit }
                      const expected = yield* pagesOf(memory, workspaceId, query)
                      const actual = yield* pagesOf(postgres, workspaceId, query)
                      expect({ query, pages: actual }).toEqual({ query, pages: expected })
                    }
                  })
                )
              }),
              { numRuns: 150 }
            )
          )
        }),
      110_000
    )
  })
})
