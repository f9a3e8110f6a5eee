import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startReceiver, type Receiver } from "../webhooks/receiver.js"
import { type Answer, hostFor, STORAGES } from "./client.js"

// One key order for a record wherever it appears, on both storages (API.md, Conventions): id, the
// standard fields in the order of the record's listing, custom fields by key, the timestamps, then
// derived fields. PostgreSQL's jsonb returns keys by length, so a read that passed its documents
// through would answer `id, email, phone, title, source, …`.

const CONTACT = [
  "id",
  "email",
  "first_name",
  "last_name",
  "phone",
  "title",
  "company_id",
  "company_ids",
  "source",
  "owner_id",
  "score",
  "tier",
  "created_at",
  "updated_at",
  "deal_ids"
]
const DEAL = [
  "id",
  "name",
  "pipeline_id",
  "stage_id",
  "value",
  "currency",
  "expected_close_date",
  "owner_id",
  "contact_ids",
  "company_id",
  "status",
  "probability",
  "lost_reason",
  "closed_at",
  "stage_entered_at",
  "region",
  "created_at",
  "updated_at",
  "weighted_value"
]
const COMPANY = [
  "id",
  "name",
  "domain",
  "industry",
  "size",
  "owner_id",
  "rank",
  "zone",
  "created_at",
  "updated_at",
  "contact_ids",
  "deal_ids"
]
const ACTIVITY = [
  "id",
  "type",
  "subject",
  "body",
  "due_at",
  "done_at",
  "owner_id",
  "contact_ids",
  "deal_ids",
  "company_ids",
  "mood",
  "outcome",
  "created_at",
  "updated_at"
]
const PIPELINE = ["id", "name", "stages", "created_at", "updated_at"]
const STAGE = ["id", "name", "position", "outcome", "probability"]
const ENTRY = ["id", "deal_id", "from_stage_id", "to_stage_id", "from_status", "to_status", "reason", "changed_at"]

/** The keys of the raw answer, in the order its text has them (JSON.parse keeps it). */
const keysOf = (value: unknown) => Object.keys(value as object)

describe.each(STORAGES)("the key order of records on %s storage", (storage) => {
  const host = hostFor(storage, { webhooks: { allowInsecure: true } })
  let receiver: Receiver

  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver.close()
  })

  const ok = (answer: Answer, status = 200) => {
    expect(answer.status, answer.text).toBe(status)
    return answer.body
  }

  it("is the same in every answer and payload that holds a contact, a deal, a pipeline or a timeline entry", async () => {
    // Defined in this order on purpose: shown by key, `score` before `tier`, whenever they were defined.
    ok(await host.call("POST", "/v1/custom-fields", { body: { object: "contact", key: "tier", label: "Tier", type: "text" } }), 201)
    ok(await host.call("POST", "/v1/custom-fields", { body: { object: "contact", key: "score", label: "Score", type: "number" } }), 201)
    ok(await host.call("POST", "/v1/custom-fields", { body: { object: "deal", key: "region", label: "Region", type: "text" } }), 201)
    ok(await host.call("POST", "/v1/webhooks", { body: { url: `${receiver.url}/hook`, events: ["contact.created", "deal.updated"] } }), 201)

    const body = {
      score: 7,
      tier: "gold",
      owner_id: "usr_1",
      source: "web",
      email: "order@example.com",
      last_name: "Lee",
      first_name: "Ann"
    }
    const created = ok(await host.call("POST", "/v1/contacts", { body }), 201)
    expect(keysOf(created)).toEqual(CONTACT)
    const id = created.id as string
    const pipeline = ok(await host.call("GET", "/v1/pipelines")).data[0]
    expect(keysOf(pipeline)).toEqual(PIPELINE)
    for (const stage of pipeline.stages) expect(keysOf(stage)).toEqual(STAGE)
    expect(keysOf(ok(await host.call("GET", `/v1/pipelines/${pipeline.id}`)))).toEqual(PIPELINE)

    const deal = ok(
      await host.call("POST", "/v1/deals", {
        body: { region: "emea", contact_ids: [id], value: 10, name: "Order", pipeline_id: pipeline.id, currency: "EUR" }
      }),
      201
    )
    expect(keysOf(deal)).toEqual(DEAL)
    const patched = ok(await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { region: "apac", stage_id: pipeline.stages[1].id } }))
    expect(keysOf(patched)).toEqual(DEAL)
    const moved = ok(await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: pipeline.stages[2].id, reason: "call" } }))
    expect(keysOf(moved.deal)).toEqual(DEAL)
    expect(keysOf(moved.timeline_entry)).toEqual(ENTRY)
    const timeline = ok(await host.call("GET", `/v1/deals/${deal.id}/timeline`)).data
    expect(timeline).toHaveLength(2)
    for (const entry of timeline) expect(keysOf(entry)).toEqual(ENTRY)
    expect(keysOf(ok(await host.call("GET", `/v1/deals/${deal.id}`)))).toEqual(DEAL)
    for (const listed of ok(await host.call("GET", "/v1/deals")).data) expect(keysOf(listed)).toEqual(DEAL)

    // The contact read back, listed, searched, expanded and patched.
    const read = ok(await host.call("GET", `/v1/contacts/${id}`))
    expect(keysOf(read)).toEqual(CONTACT)
    expect(read.deal_ids).toEqual([deal.id])
    for (const listed of ok(await host.call("GET", "/v1/contacts?search=order")).data) expect(keysOf(listed)).toEqual(CONTACT)
    const expanded = ok(await host.call("GET", `/v1/contacts/${id}?expand=deals`))
    // An expansion replaces its ids and comes last, after the derived ids (the field table's order).
    expect(keysOf(expanded)).toEqual([...CONTACT.filter((key) => key !== "deal_ids"), "deals"])
    expect(keysOf(expanded.deals[0])).toEqual(DEAL)
    expect(keysOf(ok(await host.call("PATCH", `/v1/contacts/${id}`, { body: { title: "CTO", tier: "silver" } })))).toEqual(CONTACT)

    // A replayed answer is the first answer, bytes and all.
    const key = { "idempotency-key": `order-${storage}` }
    const first = await host.call("POST", "/v1/contacts", { body: { tier: "x", email: "replay@example.com", score: 1 }, headers: key })
    const again = await host.call("POST", "/v1/contacts", { body: { tier: "x", email: "replay@example.com", score: 1 }, headers: key })
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.text).toBe(first.text)
    expect(keysOf(again.body)).toEqual(CONTACT)

    // The trash shows the record in the same order.
    expect((await host.call("DELETE", `/v1/deals/${deal.id}`)).status).toBe(204)
    expect((await host.call("DELETE", `/v1/contacts/${id}`)).status).toBe(204)
    const trashed = ok(await host.call("GET", "/v1/trash?type=contact")).data.find((entry: { id: string }) => entry.id === id)
    expect(keysOf(trashed.record)).toEqual(CONTACT)
    const trashedDeal = ok(await host.call("GET", "/v1/trash?type=deal")).data[0]
    expect(keysOf(trashedDeal.record)).toEqual(DEAL)
    const restored = ok(await host.call("POST", `/v1/contacts/${id}/restore`))
    expect(keysOf(restored)).toEqual(CONTACT)

    // Webhook payloads carry the record as the API shows it.
    await receiver.waitFor(
      (all) => all.some((r) => r.json?.type === "contact.created") && all.some((r) => r.json?.type === "deal.updated"),
      "the payloads"
    )
    const contactPayload = receiver.received.find((r) => r.json?.type === "contact.created" && r.json.data.contact.id === id)!
    expect(keysOf(contactPayload.json.data.contact)).toEqual(CONTACT)
    const dealPayload = receiver.received.find((r) => r.json?.type === "deal.updated")!
    expect(keysOf(dealPayload.json.data)).toEqual(["deal", "changed_fields"])
    expect(keysOf(dealPayload.json.data.deal)).toEqual(DEAL)
  })

  it("is the same in every answer and payload that holds a company or an activity", async () => {
    for (const [object, key] of [
      ["company", "zone"],
      ["company", "rank"],
      ["activity", "outcome"],
      ["activity", "mood"]
    ]) {
      ok(await host.call("POST", "/v1/custom-fields", { body: { object, key, label: key, type: "text" } }), 201)
    }
    ok(
      await host.call("POST", "/v1/webhooks", {
        body: { url: `${receiver.url}/records`, events: ["company.updated", "activity.created"] }
      }),
      201
    )
    const company = ok(
      await host.call("POST", "/v1/companies", {
        body: { zone: "eu", size: 5, rank: "a", name: "Order Inc", domain: `order-${storage}.example.com` }
      }),
      201
    )
    expect(keysOf(company)).toEqual(COMPANY)
    expect(keysOf(ok(await host.call("GET", `/v1/companies/${company.id}`)))).toEqual(COMPANY)
    for (const listed of ok(await host.call("GET", "/v1/companies?search=order")).data) expect(keysOf(listed)).toEqual(COMPANY)
    const patched = ok(await host.call("PATCH", `/v1/companies/${company.id}`, { body: { industry: "saas", zone: "us" } }))
    expect(keysOf(patched)).toEqual(COMPANY)
    const contact = ok(
      await host.call("POST", "/v1/contacts", { body: { email: `company-order-${storage}@example.com`, company_id: company.id } }),
      201
    )
    expect(contact.company_ids).toEqual([company.id])

    const body = {
      mood: "ok",
      outcome: "won",
      contact_ids: [contact.id],
      company_ids: [company.id],
      due_at: "2027-01-01T10:00:00Z",
      subject: "Kick-off",
      type: "meeting"
    }
    const activity = ok(await host.call("POST", "/v1/activities", { body }), 201)
    expect(keysOf(activity)).toEqual(ACTIVITY)
    expect(keysOf(ok(await host.call("PATCH", `/v1/activities/${activity.id}`, { body: { done: true } })))).toEqual(ACTIVITY)
    for (const listed of ok(await host.call("GET", `/v1/activities?contact_id=${contact.id}`)).data)
      expect(keysOf(listed)).toEqual(ACTIVITY)
    const expanded = ok(await host.call("GET", `/v1/companies/${company.id}?expand=contacts,activities`))
    // contacts replaces contact_ids where the expansion goes; activities is added after.
    expect(keysOf(expanded)).toEqual([...COMPANY.filter((key) => key !== "contact_ids"), "contacts", "activities"])
    expect(keysOf(expanded.activities[0])).toEqual(ACTIVITY)
    // Without values of the contact's custom fields, which it was not given.
    expect(keysOf(expanded.contacts[0])).toEqual(CONTACT.filter((key) => key !== "score" && key !== "tier"))

    expect((await host.call("DELETE", `/v1/activities/${activity.id}`)).status).toBe(204)
    expect(keysOf(ok(await host.call("GET", "/v1/trash?type=activity")).data[0].record)).toEqual(ACTIVITY)
    expect((await host.call("DELETE", `/v1/companies/${company.id}`)).status).toBe(204)
    const trashed = ok(await host.call("GET", "/v1/trash?type=company")).data.find((entry: { id: string }) => entry.id === company.id)
    expect(keysOf(trashed.record)).toEqual(COMPANY)
    expect(keysOf(ok(await host.call("POST", `/v1/companies/${company.id}/restore`)))).toEqual(COMPANY)

    await receiver.waitFor(
      (all) => all.some((r) => r.json?.type === "company.updated") && all.some((r) => r.json?.type === "activity.created"),
      "the payloads"
    )
    const companyPayload = receiver.received.find((r) => r.json?.type === "company.updated")!
    expect(keysOf(companyPayload.json.data)).toEqual(["company", "changed_fields"])
    expect(keysOf(companyPayload.json.data.company)).toEqual(COMPANY)
    expect(keysOf(receiver.received.find((r) => r.json?.type === "activity.created")!.json.data.activity)).toEqual(ACTIVITY)
  })
})
