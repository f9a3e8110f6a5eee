import {
  DeliveryQueue,
  type DeliveryQueueService,
  EngineLive,
  IdsLive,
  Storage,
  type StorageService,
  WebhookConfig
} from "@dealstream/core"
import { HostLive, NodeWebhookTransport } from "@dealstream/http"
import { MemoryStorage } from "@dealstream/storage-memory"
import { PgStorage } from "@dealstream/storage-pg"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { databaseText } from "../support/databaseText.js"
import { testDatabase } from "../support/pg.js"
import { type Received, type Receiver, startReceiver } from "../webhooks/receiver.js"
import { callerOf, type Host, STORAGES } from "./client.js"

/**
 * Issue 33, item 4's property: a random history around a contact (updates of its fields, a custom
 * field among them, companies, deals and activities linking it, live or in the trash, a batch
 * update, a trip through the trash, answers stored under an Idempotency-Key, webhooks whose
 * deliveries a real receiver takes), then its erasure over the API. Afterwards none of the values
 * it ever had (email, names, phone, title, nickname) appears anywhere: in any answer of any
 * endpoint (GETs of the records around it, lists, searches, histories, the trash, the change feed
 * and its events one by one, the deliveries and their attempts), in a replay of its deliveries, nor
 * anywhere in the storage: on PostgreSQL the whole database (a pg_dump of the server's version
 * where one is installed, else every row of every table: test/support/databaseText.ts), in memory
 * the storage's whole contents (MemoryStorage's `contents`). The answer counts what the history
 * says it should; another contact's data stays, so the searches are not looking at nothing.
 *
 * Named `.pg.spec.ts`, not `.e2e.pg.spec.ts`, though it drives a real host: CI's second pass runs
 * the storage-level files against the machine's PostgreSQL 15, where Debian's pg_dump 15 dumps it.
 */

const RUNS = 4
/** A workspace each run, and each of fast-check's shrinking runs, should one fail. */
const WORKSPACES = 300
const keyOf = (i: number) => `key_erasure_${i}_0123456789`
const API_KEYS = Array.from({ length: WORKSPACES }, (_, i) => ({ workspaceId: `ws_erasure_${i}`, key: keyOf(i) }))

type Field = "first_name" | "last_name" | "phone" | "title" | "nickname"

type Step =
  | { readonly _tag: "update"; readonly field: Field }
  | { readonly _tag: "deal"; readonly withOther: boolean; readonly trash: boolean }
  | { readonly _tag: "activity"; readonly withOther: boolean; readonly withDeal: boolean; readonly trash: boolean }
  | { readonly _tag: "company" }
  | { readonly _tag: "batch"; readonly keyed: boolean }
  | { readonly _tag: "trashAndBack" }

interface Scenario {
  /** Makes the run's values its own: every personal value holds it. */
  readonly tag: string
  readonly phoneBase: number
  readonly webhooks: 1 | 2
  /** The contact is created under an Idempotency-Key, whose stored answer shows it. */
  readonly keyedCreate: boolean
  readonly steps: ReadonlyArray<Step>
  /** In the trash when erased (else live). */
  readonly trashed: boolean
}

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    _tag: fc.constant("update" as const),
    field: fc.constantFrom<Field>("first_name", "last_name", "phone", "title", "nickname")
  }),
  fc.record({ _tag: fc.constant("deal" as const), withOther: fc.boolean(), trash: fc.boolean() }),
  fc.record({ _tag: fc.constant("activity" as const), withOther: fc.boolean(), withDeal: fc.boolean(), trash: fc.boolean() }),
  fc.record({ _tag: fc.constant("company" as const) }),
  fc.record({ _tag: fc.constant("batch" as const), keyed: fc.boolean() }),
  fc.record({ _tag: fc.constant("trashAndBack" as const) })
)

const scenario: fc.Arbitrary<Scenario> = fc.record({
  tag: fc.stringMatching(/^[a-z]{10}$/),
  phoneBase: fc.integer({ min: 1_000_000, max: 9_000_000 }),
  webhooks: fc.constantFrom<1 | 2>(1, 2),
  keyedCreate: fc.boolean(),
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
  trashed: fc.boolean()
})

type Json = Record<string, any>

/** What the erasure should answer, by the history the run wrote. */
interface Expected {
  events: number
  deals: number
  companies: number
  activities: number
  erasedActivities: number
  storedAnswers: number
}

const runOnce = async (
  run: number,
  call: Host["call"],
  key: string,
  workspaceId: string,
  receiver: Receiver,
  s: Scenario,
  contents: () => Promise<{ readonly text: string; readonly how: string }>
) => {
  const personal: Array<string> = []
  let n = 0
  /** A value of the person's that no other text holds: its kind's prefix, the run's tag, a counter. */
  const fresh = (field: Field | "email"): string => {
    n++
    const tag = `${s.tag}${run}x`
    const value =
      field === "email"
        ? `em${tag}${n}@person.example`
        : field === "phone"
          ? `+1 555 ${String(s.phoneBase + 100 * run + n).padStart(7, "0")}`
          : `${{ first_name: "Fn", last_name: "Ln", title: "Tt", nickname: "Nn" }[field]}${tag}${n}`
    personal.push(value)
    if (field === "email") personal.push(value.slice(0, value.indexOf("@")))
    if (field === "phone") personal.push(value.replace(/\D/g, ""))
    return value
  }
  const answers: Array<string> = []
  const ask = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const answer = await call(method, path, { key, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) })
    answers.push(answer.text)
    return answer
  }
  const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Json> => {
    const answer = await ask(method, path, body, headers)
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`)
    return answer.body
  }

  // The workspace: webhooks to the receiver, a custom field, another contact and a company.
  const webhooks: Array<string> = []
  for (let i = 0; i < s.webhooks; i++) webhooks.push((await ok("POST", "/v1/webhooks", { url: receiver.url, events: ["*"] })).id)
  await ok("POST", "/v1/custom-fields", { object: "contact", key: "nickname", label: "Nickname", type: "text" })
  const keptEmail = `kept.${s.tag}.${run}@example.com`
  const other = await ok("POST", "/v1/contacts", { email: keptEmail, first_name: "Keptperson" })
  const pipeline = (await ok("GET", "/v1/pipelines")).data[0].id
  const companies = [(await ok("POST", "/v1/companies", { name: `Company ${s.tag} 0` })).id as string]
  const person = await ok(
    "POST",
    "/v1/contacts",
    {
      email: fresh("email"),
      first_name: fresh("first_name"),
      last_name: fresh("last_name"),
      phone: fresh("phone"),
      nickname: fresh("nickname"),
      company_ids: companies
    },
    s.keyedCreate ? { "idempotency-key": `create-${s.tag}` } : undefined
  )
  const id: string = person.id
  const expected: Expected = { events: 1, deals: 0, companies: 1, activities: 0, erasedActivities: 0, storedAnswers: s.keyedCreate ? 1 : 0 }
  const deals: Array<string> = []
  const liveDeals: Array<string> = []
  const activities: Array<string> = []
  for (const [i, next] of s.steps.entries()) {
    switch (next._tag) {
      case "update":
        await ok("PATCH", `/v1/contacts/${id}`, { [next.field]: fresh(next.field) })
        expected.events++
        break
      case "deal": {
        const deal = await ok("POST", "/v1/deals", {
          name: `Deal ${s.tag} ${i}`,
          pipeline_id: pipeline,
          contact_ids: next.withOther ? [id, other.id] : [id]
        })
        deals.push(deal.id)
        if (next.trash) await ok("DELETE", `/v1/deals/${deal.id}`)
        else liveDeals.push(deal.id)
        expected.deals++
        break
      }
      case "activity": {
        // An activity links live records only.
        const dealIds = next.withDeal && liveDeals.length > 0 ? [liveDeals[0]!] : []
        const activity = await ok("POST", "/v1/activities", {
          type: "note",
          subject: `Note ${s.tag} ${i}`,
          contact_ids: next.withOther ? [id, other.id] : [id],
          deal_ids: dealIds
        })
        activities.push(activity.id)
        if (next.trash) await ok("DELETE", `/v1/activities/${activity.id}`)
        if (next.withOther || dealIds.length > 0) expected.activities++
        else expected.erasedActivities++
        break
      }
      case "company":
        companies.push((await ok("POST", "/v1/companies", { name: `Company ${s.tag} ${i}` })).id)
        await ok("PATCH", `/v1/contacts/${id}`, { company_ids: companies })
        expected.events++
        expected.companies++
        break
      case "batch": {
        const body = { operations: [{ op: "update", id, data: { title: fresh("title") } }] }
        const answer = await ok("POST", "/v1/contacts/batch", body, next.keyed ? { "idempotency-key": `batch-${s.tag}-${i}` } : undefined)
        if (answer.results[0].status !== 200) throw new Error(`batch update: ${JSON.stringify(answer)}`)
        expected.events++
        if (next.keyed) expected.storedAnswers++
        break
      }
      case "trashAndBack":
        await ok("DELETE", `/v1/contacts/${id}`)
        await ok("POST", `/v1/contacts/${id}/restore`)
        expected.events += 2
        break
    }
  }
  if (s.trashed) {
    await ok("DELETE", `/v1/contacts/${id}`)
    expected.events++
  }
  const mine = (received: ReadonlyArray<Received>) => received.filter((r) => r.json?.workspace_id === workspaceId)
  // Some deliveries are really sent before the erasure (others may still be pending: it cancels them).
  await receiver.waitFor((received) => mine(received).some((r) => r.json.data?.contact?.id === id), "a delivery of the contact")
  const exported = await ok("GET", `/v1/contacts/${id}/export`)
  expect(exported.delivery_ids).toHaveLength(expected.events * s.webhooks)
  const beforeErasure = new Date().toISOString()

  const erased = await ok("POST", `/v1/contacts/${id}/erase`)
  // From here on every answer is searched.
  answers.length = 0
  expect(erased).toEqual({
    id,
    erased_at: expect.any(String),
    redacted: {
      events: expected.events,
      feed_entries: expected.events,
      deliveries: expected.events * s.webhooks,
      stored_answers: expected.storedAnswers
    },
    unlinked: { deals: expected.deals, companies: expected.companies, activities: expected.activities },
    erased_activities: expected.erasedActivities
  })
  // Once the tombstone is delivered to each webhook nothing the erasure started is in flight.
  await receiver.waitFor(
    (received) => mine(received).filter((r) => r.json.type === "contact.erased" && r.json.data.id === id).length === s.webhooks,
    "the contact.erased deliveries"
  )
  // A replay of a delivery that carried the person sends what is left of it.
  const first = (await ok("GET", `/v1/webhooks/${webhooks[0]}/deliveries?limit=100`)).data.find((d: Json) =>
    exported.delivery_ids.includes(d.id)
  )
  const replayed = await ok("POST", `/v1/webhooks/${webhooks[0]}/deliveries/${first.id}/replay`)
  await receiver.waitFor(
    (received) => mine(received).some((r) => r.headers["x-service-delivery"] === replayed.id),
    `the replay ${replayed.id} of delivery ${first.id}`
  )
  const replay = mine(receiver.received).find((r) => r.headers["x-service-delivery"] === replayed.id)!
  expect(replay.json.data).toEqual({ redacted: true })

  // Every endpoint that could show it: the person, the records around it, lists, searches, histories, the trash, the feed.
  for (const path of [
    `/v1/contacts/${id}`,
    `/v1/contacts/${id}/history`,
    `/v1/contacts/${id}/export`,
    `/v1/contacts/${id}?as_of=${beforeErasure}`
  ]) {
    expect((await ask("GET", path)).status, path).toBe(404)
  }
  for (const value of personal) await ok("GET", `/v1/contacts?search=${encodeURIComponent(value)}`)
  await ok("GET", `/v1/contacts/${other.id}?expand=deals,companies,activities`)
  await ok("GET", `/v1/contacts/${other.id}/history`)
  await ok("GET", `/v1/contacts/${other.id}/export`)
  for (const collection of ["contacts", "deals", "companies", "activities"]) await ok("GET", `/v1/${collection}?limit=100`)
  for (const type of ["contact", "deal", "company", "activity"]) await ok("GET", `/v1/trash?type=${type}&limit=100`)
  for (const deal of deals) {
    const shown = await ask("GET", `/v1/deals/${deal}?expand=companies,activities`)
    if (shown.status === 200) expect(shown.body.contact_ids).not.toContain(id)
    await ask("GET", `/v1/deals/${deal}/history`)
    await ask("GET", `/v1/deals/${deal}/timeline`)
  }
  for (const activity of activities) {
    const shown = await ask("GET", `/v1/activities/${activity}`)
    if (shown.status === 200) expect(shown.body.contact_ids).not.toContain(id)
    await ask("GET", `/v1/activities/${activity}/history`)
  }
  for (const company of companies) {
    const shown = await ok("GET", `/v1/companies/${company}?expand=contacts,deals,activities`)
    expect(shown.contacts.map((contact: Json) => contact.id)).not.toContain(id)
    await ok("GET", `/v1/companies/${company}/history`)
  }
  const feed: Array<Json> = []
  for (let cursor: string | null = null; ; ) {
    const page: Json = await ok("GET", `/v1/events?limit=1000${cursor === null ? "" : `&after=${cursor}`}`)
    feed.push(...page.data)
    cursor = page.next_cursor
    if (page.data.length === 0) break
  }
  const announced = new Set(mine(receiver.received).map((r) => r.json.id as string))
  for (const event of feed.filter((e) => announced.has(e.id))) await ok("GET", `/v1/events/${event.id}`)
  for (const webhook of webhooks) {
    const deliveries = (await ok("GET", `/v1/webhooks/${webhook}/deliveries?limit=100`)).data
    for (const delivery of deliveries) await ok("GET", `/v1/webhooks/${webhook}/deliveries/${delivery.id}`)
  }

  const shown = answers.join("\n").toLowerCase()
  expect(shown).toContain(keptEmail)
  const dumped = await contents()
  const stored = dumped.text.toLowerCase()
  expect(stored, dumped.how).toContain(keptEmail)
  const at = (text: string, value: string) => {
    const i = text.indexOf(value.toLowerCase())
    return i < 0 ? "" : ` «${text.slice(Math.max(0, i - 300), i + 100)}»`
  }
  const found = personal.filter((value) => shown.includes(value.toLowerCase()) || stored.includes(value.toLowerCase()))
  const where = found.map(
    (value) =>
      `${value}:${shown.includes(value.toLowerCase()) ? ` in an answer${at(shown, value)}` : ""}${
        stored.includes(value.toLowerCase()) ? ` in the storage${at(stored, value)}` : ""
      }`
  )
  expect(where, `the person's values left after the erasure (the storage read as ${dumped.how})`).toEqual([])
  for (const webhook of webhooks) await ok("DELETE", `/v1/webhooks/${webhook}`)
}

for (const storage of STORAGES) {
  describe(`a contact's erasure leaves nothing of the person, on ${storage} storage`, () => {
    let scope: Scope.Closeable | undefined
    let receiver: Receiver | undefined
    let call: Host["call"] | undefined
    let contents: (() => Promise<{ readonly text: string; readonly how: string }>) | undefined

    beforeAll(async () => {
      scope = Effect.runSync(Scope.make())
      receiver = await startReceiver()
      let services: { readonly storage: StorageService; readonly queue: DeliveryQueueService }
      if (storage === "memory") {
        const memory = await Effect.runPromise(MemoryStorage.makeWithQueue)
        services = memory
        contents = async () => ({ text: JSON.stringify(await Effect.runPromise(memory.contents)), how: "the memory storage's contents" })
      } else {
        const url = await Effect.runPromise(Scope.provide(testDatabase, scope))
        const context = await Effect.runPromise(Layer.buildWithScope(PgStorage.layer(url), scope))
        services = { storage: Context.get(context, Storage), queue: Context.get(context, DeliveryQueue) }
        contents = () => databaseText(url)
      }
      const host = HostLive({
        port: 0,
        host: "127.0.0.1",
        apiKeys: API_KEYS,
        rateLimit: 1_000_000,
        rateBurst: 1_000_000,
        log: false
      }).pipe(
        Layer.provide(
          EngineLive.pipe(
            Layer.provideMerge(IdsLive),
            Layer.provideMerge(Layer.succeed(Storage, services.storage)),
            Layer.provideMerge(Layer.succeed(DeliveryQueue, services.queue)),
            Layer.provideMerge(WebhookConfig.layer({ allowInsecure: true })),
            Layer.provideMerge(NodeWebhookTransport.layer)
          )
        )
      )
      const address = Context.get(await Effect.runPromise(Layer.buildWithScope(host, scope)), HttpServer.HttpServer).address
      if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
      call = callerOf(`http://127.0.0.1:${address.port}`)
    })
    afterAll(async () => {
      if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
      await receiver?.close()
    })

    it(`finds none of its values in any answer, any delivery replayed, or ${storage === "memory" ? "the storage's whole contents" : "the whole database"}`, async () => {
      let next = 0
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const i = next++
          if (i >= WORKSPACES) throw new Error("out of workspaces: raise WORKSPACES")
          await runOnce(i, call!, keyOf(i), `ws_erasure_${i}`, receiver!, s, contents!)
        }),
        { numRuns: RUNS, plugins: [fc.interruptAfterTimeLimit(150_000, { failOnInterrupt: true })] }
      )
    }, 180_000)
  })
}
