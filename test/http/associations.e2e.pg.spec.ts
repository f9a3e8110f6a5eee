import { contactAggregate, DeliveryQueue, type DeliveryQueueService, Storage, type StorageService } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { it as effectIt } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { engineOver } from "../support/engine.js"
import { pgStorageLayer } from "../support/pg.js"
import { as, receiverForTest, register, type Scoped, WEBHOOK_API_KEYS, workspaces } from "../webhooks/support.js"
import { type Answer, errorOf, hostFor, STORAGES } from "./client.js"

/**
 * Contacts and deals linked to companies (API.md, "Companies", Associations), through a real host
 * over real sockets, on each storage: what a write may name, how a company's trip to the trash
 * shows on the records linked to it, the list filters, the expands and a webhook's payload. Each
 * test has a workspace of its own, so its lists hold only its records.
 */
describe.each(STORAGES)("associations with companies on %s storage", { timeout: 60_000 }, (storage) => {
  const host = hostFor(storage, {
    apiKeys: WEBHOOK_API_KEYS,
    webhooks: { allowInsecure: true, retrySchedule: [200, 400, 800], timeoutMillis: 3_000 }
  })
  const workspace = workspaces()
  let n = 0
  const email = (name: string) => `${name}.${n++}@example.com`

  const ok = async (api: Scoped, method: string, path: string, body?: unknown) => {
    const answer = await api.call(method, path, body === undefined ? {} : { body })
    expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300)
    return answer.body
  }
  /** A 400 at exactly these paths. */
  const refusedAt = (answer: Answer, paths: ReadonlyArray<string>) => {
    expect(answer.status, answer.text).toBe(400)
    const error = errorOf(answer)
    expect(error.code).toBe("validation_error")
    expect(error.details.map((d: { path: string }) => d.path)).toEqual(paths)
  }
  const company = async (api: Scoped, name: string) => (await ok(api, "POST", "/v1/companies", { name })).id as string
  const pipelineOf = async (api: Scoped) => (await ok(api, "GET", "/v1/pipelines")).data[0].id as string
  const companiesOf = (record: Record<string, unknown>) => [record["company_id"], record["company_ids"]]

  it("a new contact takes company_id or company_ids alone or both, and refuses a conflict or a company not live, creating nothing", async () => {
    const api = as(host, workspace())
    const [a, b, gone] = [await company(api, "A"), await company(api, "B"), await company(api, "Gone")]
    await ok(api, "DELETE", `/v1/companies/${gone}`)

    expect(companiesOf(await ok(api, "POST", "/v1/contacts", { email: email("one"), company_id: a }))).toEqual([a, [a]])
    expect(companiesOf(await ok(api, "POST", "/v1/contacts", { email: email("list"), company_ids: [b, a] }))).toEqual([b, [b, a]])
    expect(companiesOf(await ok(api, "POST", "/v1/contacts", { email: email("both"), company_ids: [b, a], company_id: a }))).toEqual([
      a,
      [a, b]
    ])
    expect(companiesOf(await ok(api, "POST", "/v1/contacts", { email: email("none") }))).toEqual([null, []])
    expect(companiesOf(await ok(api, "POST", "/v1/contacts", { email: email("nulls"), company_id: null, company_ids: [] }))).toEqual([
      null,
      []
    ])
    const before = (await ok(api, "GET", "/v1/contacts?limit=100")).data

    refusedAt(await api.call("POST", "/v1/contacts", { body: { email: email("x"), company_id: b, company_ids: [a] } }), ["company_id"])
    refusedAt(await api.call("POST", "/v1/contacts", { body: { email: email("x"), company_id: "comp_nowhere" } }), ["company_id"])
    refusedAt(await api.call("POST", "/v1/contacts", { body: { email: email("x"), company_ids: [a, "comp_nowhere", gone] } }), [
      "company_ids[1]",
      "company_ids[2]"
    ])
    refusedAt(await api.call("POST", "/v1/contacts", { body: { email: email("x"), company_id: gone } }), ["company_id"])
    refusedAt(await api.call("POST", "/v1/contacts", { body: { email: email("x"), company_ids: "comp_1" } }), ["company_ids"])
    // Another workspace's company is no company of this one.
    const theirs = await company(as(host, workspace()), "Theirs")
    refusedAt(await api.call("POST", "/v1/contacts", { body: { email: email("x"), company_id: theirs } }), ["company_id"])
    expect((await ok(api, "GET", "/v1/contacts?limit=100")).data).toEqual(before)
  })

  it("a contact's patch sets either or both; a refused one changes nothing", async () => {
    const api = as(host, workspace())
    const [a, b, c, gone] = [await company(api, "A"), await company(api, "B"), await company(api, "C"), await company(api, "Gone")]
    await ok(api, "DELETE", `/v1/companies/${gone}`)
    const contact = await ok(api, "POST", "/v1/contacts", { email: email("patched"), company_id: a })
    const path = `/v1/contacts/${contact.id}`

    expect(companiesOf(await ok(api, "PATCH", path, { company_ids: [b, c] }))).toEqual([b, [b, c]])
    expect(companiesOf(await ok(api, "PATCH", path, { company_id: c }))).toEqual([c, [c]])
    expect(companiesOf(await ok(api, "PATCH", path, { company_ids: [a, b, c], company_id: b }))).toEqual([b, [b, a, c]])
    expect(companiesOf(await ok(api, "PATCH", path, { first_name: "Ada" }))).toEqual([b, [b, a, c]])
    expect(companiesOf(await ok(api, "PATCH", path, { company_id: null }))).toEqual([null, []])
    const set = await ok(api, "PATCH", path, { company_ids: [a, b] })
    expect(companiesOf(set)).toEqual([a, [a, b]])
    const etag = (await api.call("GET", path)).headers.get("etag")

    refusedAt(await api.call("PATCH", path, { body: { company_id: c, company_ids: [a, b] } }), ["company_id"])
    refusedAt(await api.call("PATCH", path, { body: { company_id: "comp_nowhere" } }), ["company_id"])
    refusedAt(await api.call("PATCH", path, { body: { company_ids: [gone] } }), ["company_ids[0]"])
    refusedAt(await api.call("PATCH", path, { body: { company_id: gone, company_ids: [gone, a] } }), ["company_id"])
    const after = await api.call("GET", path)
    expect(after.body).toEqual(set)
    expect(after.headers.get("etag")).toBe(etag)
  })

  it("a deal takes an optional live company_id; a refused write changes nothing", async () => {
    const api = as(host, workspace())
    const pipelineId = await pipelineOf(api)
    const [a, b, gone] = [await company(api, "A"), await company(api, "B"), await company(api, "Gone")]
    await ok(api, "DELETE", `/v1/companies/${gone}`)

    const bare = await ok(api, "POST", "/v1/deals", { name: "No company", pipeline_id: pipelineId })
    expect(bare.company_id).toBeNull()
    expect(Object.keys(bare).indexOf("company_id")).toBe(Object.keys(bare).indexOf("contact_ids") + 1)
    const deal = await ok(api, "POST", "/v1/deals", { name: "With A", pipeline_id: pipelineId, company_id: a })
    expect(deal.company_id).toBe(a)
    refusedAt(await api.call("POST", "/v1/deals", { body: { name: "X", pipeline_id: pipelineId, company_id: gone } }), ["company_id"])
    refusedAt(await api.call("POST", "/v1/deals", { body: { name: "X", pipeline_id: pipelineId, company_id: "comp_nowhere" } }), [
      "company_id"
    ])
    expect((await ok(api, "GET", "/v1/deals?limit=100")).data.map((d: { id: string }) => d.id)).toEqual([bare.id, deal.id])

    const path = `/v1/deals/${deal.id}`
    expect((await ok(api, "PATCH", path, { company_id: b })).company_id).toBe(b)
    const etag = (await api.call("GET", path)).headers.get("etag")
    refusedAt(await api.call("PATCH", path, { body: { company_id: gone } }), ["company_id"])
    expect((await api.call("GET", path)).headers.get("etag")).toBe(etag)
    expect((await ok(api, "PATCH", path, { company_id: null })).company_id).toBeNull()
  })

  it("a company in the trash leaves the views of its contacts and deals, trash items included, and comes back on restore", async () => {
    const api = as(host, workspace())
    const pipelineId = await pipelineOf(api)
    const [a, b] = [await company(api, "A"), await company(api, "B")]
    const contact = await ok(api, "POST", "/v1/contacts", { email: email("linked"), company_ids: [a, b] })
    const trashed = await ok(api, "POST", "/v1/contacts", { email: email("trashed"), company_id: a })
    await ok(api, "DELETE", `/v1/contacts/${trashed.id}`)
    const deal = await ok(api, "POST", "/v1/deals", { name: "A's deal", pipeline_id: pipelineId, company_id: a })
    const trashedDeal = await ok(api, "POST", "/v1/deals", { name: "Gone deal", pipeline_id: pipelineId, company_id: a })
    await ok(api, "DELETE", `/v1/deals/${trashedDeal.id}`)

    const shown = async () => ({
      contact: companiesOf(await ok(api, "GET", `/v1/contacts/${contact.id}`)),
      contactListed: companiesOf((await ok(api, "GET", "/v1/contacts")).data[0]),
      contactInTrash: companiesOf((await ok(api, "GET", "/v1/trash?type=contact")).data[0].record),
      deal: (await ok(api, "GET", `/v1/deals/${deal.id}`)).company_id,
      dealListed: (await ok(api, "GET", "/v1/deals")).data[0].company_id,
      dealInTrash: (await ok(api, "GET", "/v1/trash?type=deal")).data[0].record.company_id
    })
    const linked = { contact: [a, [a, b]], contactListed: [a, [a, b]], contactInTrash: [a, [a]], deal: a, dealListed: a, dealInTrash: a }
    expect(await shown()).toEqual(linked)

    await ok(api, "DELETE", `/v1/companies/${a}`)
    expect(await shown()).toEqual({
      contact: [null, [b]],
      contactListed: [null, [b]],
      contactInTrash: [null, []],
      deal: null,
      dealListed: null,
      dealInTrash: null
    })

    await ok(api, "POST", `/v1/companies/${a}/restore`)
    expect(await shown()).toEqual(linked)
  })

  it("a patch keeps the linked companies in the trash: what a client was shown, sent back, changes nothing", async () => {
    const api = as(host, workspace())
    const pipelineId = await pipelineOf(api)
    const [a, b, c] = [await company(api, "A"), await company(api, "B"), await company(api, "C")]
    const contact = await ok(api, "POST", "/v1/contacts", { email: email("kept"), company_ids: [a, b] })
    const deal = await ok(api, "POST", "/v1/deals", { name: "Kept", pipeline_id: pipelineId, company_id: a })
    await ok(api, "DELETE", `/v1/companies/${a}`)

    const shown = await ok(api, "GET", `/v1/contacts/${contact.id}`)
    expect(companiesOf(shown)).toEqual([null, [b]])
    const sentBack = await ok(api, "PATCH", `/v1/contacts/${contact.id}`, { company_id: shown.company_id, company_ids: shown.company_ids })
    expect(sentBack).toEqual(shown)
    expect(companiesOf(await ok(api, "PATCH", `/v1/contacts/${contact.id}`, { company_ids: [c, b] }))).toEqual([c, [c, b]])
    expect((await ok(api, "PATCH", `/v1/deals/${deal.id}`, { company_id: null, name: "Still kept" })).company_id).toBeNull()

    await ok(api, "POST", `/v1/companies/${a}/restore`)
    // The trashed primary stayed where it stood, no longer the primary once c was named.
    expect(companiesOf(await ok(api, "GET", `/v1/contacts/${contact.id}`))).toEqual([c, [c, a, b]])
    expect((await ok(api, "GET", `/v1/deals/${deal.id}`)).company_id).toBe(a)
  })

  it("lists the contacts and the deals of one company, none for a company not live", async () => {
    const api = as(host, workspace())
    const pipelineId = await pipelineOf(api)
    const [a, b] = [await company(api, "A"), await company(api, "B")]
    const first = await ok(api, "POST", "/v1/contacts", { email: email("first"), company_id: a })
    const second = await ok(api, "POST", "/v1/contacts", { email: email("second"), company_ids: [b, a] })
    await ok(api, "POST", "/v1/contacts", { email: email("other"), company_id: b })
    await ok(api, "POST", "/v1/contacts", { email: email("alone") })
    const dealA = await ok(api, "POST", "/v1/deals", { name: "A", pipeline_id: pipelineId, company_id: a })
    await ok(api, "POST", "/v1/deals", { name: "B", pipeline_id: pipelineId, company_id: b })
    await ok(api, "POST", "/v1/deals", { name: "None", pipeline_id: pipelineId })

    const contactIds = async (query: string) => (await ok(api, "GET", `/v1/contacts?${query}`)).data.map((c: { id: string }) => c.id)
    const dealIds = async (query: string) => (await ok(api, "GET", `/v1/deals?${query}`)).data.map((d: { id: string }) => d.id)
    expect(await contactIds(`company_id=${a}`)).toEqual([first.id, second.id])
    expect(await contactIds(`company_id=${a}&limit=1&sort=-created_at`)).toEqual([second.id])
    expect(await contactIds(`company_id=${a}&search=second`)).toEqual([second.id])
    expect(await dealIds(`company_id=${a}`)).toEqual([dealA.id])
    expect(await dealIds(`company_id=comp_nowhere`)).toEqual([])
    expect(await contactIds(`company_id=comp_nowhere`)).toEqual([])

    await ok(api, "DELETE", `/v1/companies/${a}`)
    expect(await contactIds(`company_id=${a}`)).toEqual([])
    expect(await dealIds(`company_id=${a}`)).toEqual([])
    await ok(api, "POST", `/v1/companies/${a}/restore`)
    expect(await dealIds(`company_id=${a}`)).toEqual([dealA.id])

    refusedAt(await api.call("GET", "/v1/contacts?company_id="), ["company_id"])
    refusedAt(await api.call("GET", "/v1/deals?company_id="), ["company_id"])
    // company_ids is not in the filter grammar.
    refusedAt(await api.call("GET", `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ company_ids: a }))}`), [
      "filter.company_ids"
    ])
    expect(await dealIds(`filter=${encodeURIComponent(JSON.stringify({ company_id: a }))}`)).toEqual([dealA.id])
  })

  it("expands companies on a contact (in place of company_ids) and on a deal (a list of none or one)", async () => {
    const api = as(host, workspace())
    const pipelineId = await pipelineOf(api)
    const [a, b] = [await company(api, "A"), await company(api, "B")]
    const contact = await ok(api, "POST", "/v1/contacts", { email: email("expanded"), company_ids: [b, a] })
    const deal = await ok(api, "POST", "/v1/deals", { name: "Expanded", pipeline_id: pipelineId, company_id: a, contact_ids: [contact.id] })
    const bare = await ok(api, "POST", "/v1/deals", { name: "Bare", pipeline_id: pipelineId })
    const [companyA, companyB] = [await ok(api, "GET", `/v1/companies/${a}`), await ok(api, "GET", `/v1/companies/${b}`)]

    const expanded = await ok(api, "GET", `/v1/contacts/${contact.id}?expand=companies`)
    const { company_ids: _ids, ...rest } = await ok(api, "GET", `/v1/contacts/${contact.id}`)
    expect(expanded).toEqual({ ...rest, companies: [companyB, companyA] })
    expect(Object.keys(expanded).slice(-2)).toEqual(["deal_ids", "companies"])
    const both = await ok(api, "GET", `/v1/contacts/${contact.id}?expand=companies,deals`)
    expect(Object.keys(both).slice(-2)).toEqual(["deals", "companies"])
    expect(both.deals.map((d: { id: string }) => d.id)).toEqual([deal.id])

    expect(await ok(api, "GET", `/v1/deals/${deal.id}?expand=companies`)).toEqual({ ...deal, companies: [companyA] })
    expect(await ok(api, "GET", `/v1/deals/${bare.id}?expand=companies`)).toEqual({ ...bare, companies: [] })
    await ok(api, "DELETE", `/v1/companies/${a}`)
    expect((await ok(api, "GET", `/v1/deals/${deal.id}?expand=companies`)).companies).toEqual([])
    expect((await ok(api, "GET", `/v1/contacts/${contact.id}?expand=companies`)).companies.map((c: { id: string }) => c.id)).toEqual([b])

    refusedAt(await api.call("GET", `/v1/deals/${deal.id}?expand=contacts`), ["expand"])
    refusedAt(await api.call("GET", `/v1/contacts/${contact.id}?expand=company`), ["expand"])
    refusedAt(await api.call("GET", `/v1/deals/${deal.id}?expand=companies&as_of=2026-01-01T00:00:00Z`), ["as_of"])
  })

  it("expands activities on a contact and on a deal: their live activity records, newest first", async () => {
    const api = as(host, workspace())
    const pipelineId = await pipelineOf(api)
    const contact = await ok(api, "POST", "/v1/contacts", { email: email("busy") })
    const deal = await ok(api, "POST", "/v1/deals", { name: "Busy", pipeline_id: pipelineId, contact_ids: [contact.id] })
    const note = await ok(api, "POST", "/v1/activities", { type: "note", subject: "First note", contact_ids: [contact.id] })
    const call = await ok(api, "POST", "/v1/activities", { type: "call", subject: "Call", contact_ids: [contact.id], deal_ids: [deal.id] })
    const deleted = await ok(api, "POST", "/v1/activities", { type: "note", subject: "Dropped", deal_ids: [deal.id] })
    await ok(api, "DELETE", `/v1/activities/${deleted.id}`)

    const onContact = await ok(api, "GET", `/v1/contacts/${contact.id}?expand=activities`)
    expect(onContact.activities).toEqual([
      await ok(api, "GET", `/v1/activities/${call.id}`),
      await ok(api, "GET", `/v1/activities/${note.id}`)
    ])
    const onDeal = await ok(api, "GET", `/v1/deals/${deal.id}?expand=activities,companies`)
    expect(onDeal.activities.map((a: { id: string }) => a.id)).toEqual([call.id])
    expect(Object.keys(onDeal).slice(-2)).toEqual(["companies", "activities"])
    // What the log recorded of the contact is its history.
    const history = await ok(api, "GET", `/v1/contacts/${contact.id}/history`)
    expect(history.data.map((e: { type: string }) => e.type)).toEqual(["contact.created"])
  })

  it("a webhook's payload shows the contact's and the deal's companies as GET does", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const pipelineId = await pipelineOf(api)
    const [a, b] = [await company(api, "A"), await company(api, "B")]
    await register(api, `${receiver.url}/hook`, { events: ["contact.created", "contact.updated", "deal.created"] })
    const contact = await ok(api, "POST", "/v1/contacts", { email: email("hooked"), company_ids: [a, b] })
    const deal = await ok(api, "POST", "/v1/deals", { name: "Hooked", pipeline_id: pipelineId, company_id: b })
    await ok(api, "DELETE", `/v1/companies/${a}`)
    const updated = await ok(api, "PATCH", `/v1/contacts/${contact.id}`, { title: "CTO" })
    expect(companiesOf(updated)).toEqual([null, [b]])

    await receiver.waitFor((received) => received.length >= 3, "three deliveries")
    const data = (type: string) => receiver.received.find((r) => r.json.type === type)!.json.data
    expect(data("contact.created").contact).toEqual(contact)
    expect(data("deal.created").deal).toEqual(deal)
    expect(data("contact.updated").contact).toEqual(updated)
  })
})

/**
 * A contact written before contacts stored company_ids (its company_id free text, naming no
 * company): shown as it is, with company_ids [company_id], until a write names companies. The host
 * can no longer write one, so it is committed to the storage directly, and read through the engine
 * over each storage.
 */
const legacyContact = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    const engine = yield* engineOver({ storage, queue })
    const ctx = { workspaceId: `legacy_${Date.now().toString(36)}`, requestId: null, actor: "test" }
    const id = `con_legacy${Date.now().toString(36)}`
    const at = "2026-01-05T10:00:00.000Z"
    const fields = {
      email: "old@example.com",
      first_name: "Old",
      last_name: null,
      phone: null,
      title: null,
      company_id: "ACME-42",
      source: null,
      owner_id: null
    }
    const created = { type: "contact.created" as const, data: { id, fields, at } }
    yield* storage.commit({
      streams: [
        {
          streamId: id,
          expectedVersion: 0,
          events: [{ ...created, metadata: { workspaceId: ctx.workspaceId, eventId: `evt_${id}`, requestId: null, actor: "test" } }]
        }
      ],
      documents: contactAggregate.documents(
        { workspaceId: ctx.workspaceId, id, definitions: [] },
        { before: null, fresh: [created], version: 1 }
      )
    })

    const shown = yield* engine.contacts.get(ctx, id, null)
    expect(shown.data).toEqual({ id, ...fields, company_ids: ["ACME-42"], created_at: at, updated_at: at, deal_ids: [] })
    expect(Object.keys(shown.data).indexOf("company_ids")).toBe(Object.keys(shown.data).indexOf("company_id") + 1)
    expect((yield* engine.contacts.list(ctx, {})).data).toEqual([shown.data])
    expect((yield* engine.contacts.list(ctx, { company_id: "ACME-42" })).data).toEqual([])
    // Patching anything else keeps it; sending its company_id back names no live company.
    const titled = yield* engine.contacts.update(ctx, id, { title: "CEO" }, null)
    expect([titled.data["company_id"], titled.data["company_ids"]]).toEqual(["ACME-42", ["ACME-42"]])
    const refused = yield* Effect.flip(engine.contacts.update(ctx, id, { company_id: "ACME-42" }, null))
    expect(refused._tag === "ValidationError" && refused.details.map((d) => d.path)).toEqual(["company_id"])

    const companyId = (yield* engine.companies.create(ctx, { name: "ACME" })).data["id"] as string
    const linked = yield* engine.contacts.update(ctx, id, { company_id: companyId }, null)
    expect([linked.data["company_id"], linked.data["company_ids"]]).toEqual([companyId, [companyId]])
    expect((yield* engine.contacts.list(ctx, { company_id: companyId })).data.map((c) => c["id"])).toEqual([id])
  }).pipe(Effect.scoped)

describe("a contact stored before company_ids", () => {
  effectIt.effect("memory storage", () =>
    Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => legacyContact(storage, queue))
  )

  effectIt.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("PostgreSQL", () =>
      Effect.gen(function* () {
        yield* legacyContact(yield* Storage, yield* DeliveryQueue)
      })
    )
  })
})
