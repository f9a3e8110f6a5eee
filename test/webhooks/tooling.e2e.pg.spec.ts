import Ajv2020 from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { randomBytes } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { errorOf, hostFor, STORAGES } from "../http/client.js"
import type { Received } from "./receiver.js"
import {
  as,
  deliveriesOf,
  ERASURE_EVENT_TYPES,
  EVENT_TYPES,
  LATER_EVENT_TYPES,
  MERGE_EVENT_TYPES,
  receiverForTest,
  register,
  type Scoped,
  WEBHOOK_API_KEYS,
  webhookWhen,
  workspaces
} from "./support.js"

// The webhook tools through real hosts (memory and PostgreSQL) to a real receiver on 127.0.0.1:
// POST /v1/webhooks/:id/test, and GET /v1/webhook-event-types whose schemas real deliveries meet.

/** Short enough for a test to wait it out, long beyond any local answer on a loaded machine. */
const TIMEOUT_MS = 3_000

const standardSecret = () => `whsec_${randomBytes(32).toString("base64")}`

/** Whether a Standard Webhooks library in its default mode accepts the request with this secret. */
const libraryVerifies = (secret: string, received: Received) => {
  try {
    new Webhook(secret).verify(received.rawBody, received.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

/** The listed types, each with its validator, compiled as test/http/openapiCheck.ts compiles the document. */
const eventTypesOf = async (api: Scoped) => {
  const answer = await api.call("GET", "/v1/webhook-event-types")
  expect(answer.status, answer.text).toBe(200)
  const ajv = new Ajv2020.default({ allErrors: true, strict: true })
  addFormats.default(ajv)
  const listed = answer.body.data as Array<{ type: string; description: string; schema: Record<string, unknown> }>
  return { answer, listed, validators: new Map(listed.map((entry) => [entry.type, ajv.compile(entry.schema)])) }
}

/** The wrong parts of `data` as the type's schema finds them; empty when it conforms. */
const problemsOf = (validators: Awaited<ReturnType<typeof eventTypesOf>>["validators"], type: string, data: unknown) => {
  const validate = validators.get(type)
  if (validate === undefined) return [`no schema listed for ${type}`]
  return validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? ""}`)
}

const testWebhook = (api: Scoped, webhookId: string) => api.call("POST", `/v1/webhooks/${webhookId}/test`)

describe.each(STORAGES)("webhook tooling on %s storage", { timeout: 90_000 }, (storage) => {
  const host = hostFor(storage, { apiKeys: WEBHOOK_API_KEYS, webhooks: { allowInsecure: true, timeoutMillis: TIMEOUT_MS } })
  const workspace = workspaces()

  it("test sends a signed webhook.test at once, as a delivery is sent, and records nothing", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const secret = standardSecret()
    const webhook = await register(api, `${receiver.url}/hooks`, { events: ["contact.created"], secret })
    const before = await api.call("GET", `/v1/webhooks/${webhook.id}`)
    const startedSecond = Math.floor(Date.now() / 1000)

    const answer = await testWebhook(api, webhook.id)
    expect(answer.status, answer.text).toBe(200)
    expect(Object.keys(answer.body)).toEqual(["status_code", "duration_ms", "error"])
    expect(answer.body).toEqual({ status_code: 200, duration_ms: expect.any(Number), error: null })
    expect(Number.isInteger(answer.body.duration_ms) && answer.body.duration_ms >= 0).toBe(true)
    // Sent before the answer, not queued.
    expect(receiver.received).toHaveLength(1)

    const received = receiver.received[0]!
    expect(received.method).toBe("POST")
    expect(received.path).toBe("/hooks")
    expect(Object.keys(received.json)).toEqual(["id", "type", "created_at", "workspace_id", "sequence", "data"])
    expect(received.json).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
      type: "webhook.test",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      workspace_id: api.workspaceId,
      sequence: 0,
      data: { webhook_id: webhook.id }
    })
    expect(JSON.stringify(received.json)).toBe(received.rawBody.toString("utf8"))
    const headers = received.headers
    expect(headers["content-type"]).toBe("application/json")
    expect(headers["user-agent"]).toBe("dealstream-webhooks/1")
    expect(headers["x-service-event"]).toBe("webhook.test")
    expect(headers["webhook-id"]).toBe(received.json.id)
    expect(headers["x-service-event-id"]).toBe(received.json.id)
    expect(headers).not.toHaveProperty("x-service-delivery")
    expect(Number(headers["webhook-timestamp"])).toBeGreaterThanOrEqual(startedSecond)
    expect(Number(headers["webhook-timestamp"])).toBeLessThanOrEqual(Math.floor(received.at / 1000))
    expect(headers["x-service-signature"]).toBe(headers["webhook-signature"])
    expect(libraryVerifies(secret, received)).toBe(true)
    expect(libraryVerifies(standardSecret(), received)).toBe(false)

    // Each test is a new event id, so a receiver de-duplicating by webhook-id lets it through.
    expect((await testWebhook(api, webhook.id)).body.status_code).toBe(200)
    expect(receiver.received).toHaveLength(2)
    expect(receiver.received[1]!.json.id).not.toBe(received.json.id)

    // No delivery, and the webhook's own stream untouched (same version, no last delivery).
    expect(await deliveriesOf(api, webhook.id)).toEqual([])
    const after = await api.call("GET", `/v1/webhooks/${webhook.id}`)
    expect(after.headers.get("etag")).toBe(before.headers.get("etag"))
    expect(after.body).toEqual(before.body)
    expect(after.body.last_delivery_at).toBeNull()
  })

  it("test answers the receiver's status, 2xx or not, with error null, and a 410 fails nothing", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    receiver.script({ status: 500, body: "oops" }, { status: 410 })
    const webhook = await register(api, receiver.url, { events: ["contact.created"] })
    const failing = await testWebhook(api, webhook.id)
    expect(failing.status, failing.text).toBe(200)
    expect(failing.body).toEqual({ status_code: 500, duration_ms: expect.any(Number), error: null })
    const gone = await testWebhook(api, webhook.id)
    expect(gone.body).toEqual({ status_code: 410, duration_ms: expect.any(Number), error: null })
    expect(receiver.received.map((r) => r.json.type)).toEqual(["webhook.test", "webhook.test"])
    // A delivery's 410 turns the webhook failed; a test's is only reported.
    expect((await api.call("GET", `/v1/webhooks/${webhook.id}`)).body.status).toBe("active")
    expect(await deliveriesOf(api, webhook.id)).toEqual([])
  })

  it("test reports a request that got no answer: refused, or past the timeout", async () => {
    const api = as(host, workspace())
    const refused = await register(api, "http://127.0.0.1:9/x", { events: ["contact.created"] })
    const answer = await testWebhook(api, refused.id)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ status_code: null, duration_ms: expect.any(Number), error: "connection refused" })

    const receiver = await receiverForTest()
    receiver.script("hold")
    const silent = await register(api, receiver.url, { events: ["contact.created"] })
    const timedOut = await testWebhook(api, silent.id)
    expect(timedOut.body).toEqual({ status_code: null, duration_ms: expect.any(Number), error: `timed out after ${TIMEOUT_MS} ms` })
    expect(timedOut.body.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50)
    // The held request was given up, as a delivery's is at its timeout.
    expect(receiver.received).toHaveLength(1)
    await receiver.waitFor(() => receiver.aborted.length === 1, "the held request to be closed")
  })

  it("tests a failed webhook too, which stays failed", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    receiver.script({ status: 410 }, { status: 200 })
    const webhook = await register(api, receiver.url, { events: ["contact.created"] })
    expect((await api.call("POST", "/v1/contacts", { body: { email: "gone@example.com" } })).status).toBe(201)
    await webhookWhen(api, webhook.id, (w) => w.status === "failed", "the webhook to fail on 410")

    const answer = await testWebhook(api, webhook.id)
    expect(answer.body).toEqual({ status_code: 200, duration_ms: expect.any(Number), error: null })
    expect(receiver.received.map((r) => r.json.type)).toEqual(["contact.created", "webhook.test"])
    expect((await api.call("GET", `/v1/webhooks/${webhook.id}`)).body.status).toBe("failed")
  })

  it("test is 404 for an unknown webhook and for another workspace's, sending nothing; 400 for a query parameter", async () => {
    const api = as(host, workspace())
    const other = as(host, workspace())
    const receiver = await receiverForTest()
    const webhook = await register(api, receiver.url, { events: ["contact.created"] })

    const unknown = await testWebhook(api, "wh_01jd7x4c2m8k9q3r5t6v7w8y9z")
    expect(unknown.status, unknown.text).toBe(404)
    expect(errorOf(unknown).code).toBe("not_found")
    const foreign = await testWebhook(other, webhook.id)
    expect(foreign.status, foreign.text).toBe(404)
    expect(errorOf(foreign).code).toBe("not_found")
    const withQuery = await api.call("POST", `/v1/webhooks/${webhook.id}/test?dry=1`)
    expect(withQuery.status, withQuery.text).toBe(400)
    expect(errorOf(withQuery).details.map((d) => d.path)).toEqual(["dry"])
    expect(receiver.received).toHaveLength(0)
  })

  it("lists every event type with a description and a self-contained schema; webhook.test is not subscribable", async () => {
    const api = as(host, workspace())
    const { answer, listed } = await eventTypesOf(api)
    expect(answer.body.next_cursor).toBeNull()
    expect(listed.map((entry) => entry.type)).toEqual([
      ...EVENT_TYPES,
      ...LATER_EVENT_TYPES,
      ...ERASURE_EVENT_TYPES,
      ...MERGE_EVENT_TYPES,
      "webhook.test"
    ])
    for (const entry of listed) {
      expect(Object.keys(entry), entry.type).toEqual(["type", "description", "schema"])
      expect(entry.description.trim().length, entry.type).toBeGreaterThan(10)
      expect(entry.schema, entry.type).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" })
    }
    expect(JSON.stringify(listed)).not.toContain("$ref")

    expect((await api.call("GET", "/v1/webhook-event-types", { key: null })).status).toBe(401)
    const subscribe = await api.call("POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/x", events: ["webhook.test"] } })
    expect(subscribe.status, subscribe.text).toBe(400)
    expect(errorOf(subscribe).details.map((d) => d.path)).toEqual(["events[0]"])
  })

  it("real deliveries of every event type, and a test, carry data their listed schema accepts; wrong data it refuses", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const webhook = await register(api, receiver.url, { events: ["*"] })
    // Custom fields ride in the records beside the standard ones: the schemas must take them.
    for (const [object, key] of [
      ["contact", "tier"],
      ["deal", "region"],
      ["company", "zone"],
      ["activity", "outcome"]
    ]) {
      const defined = await api.call("POST", "/v1/custom-fields", { body: { object, key, label: key, type: "text" } })
      expect(defined.status, defined.text).toBe(201)
    }

    const contact = (await api.call("POST", "/v1/contacts", { body: { email: "schema@example.com", tier: "gold" } })).body
    expect((await api.call("PATCH", `/v1/contacts/${contact.id}`, { body: { first_name: "Sam", tier: null } })).status).toBe(200)
    expect((await api.call("DELETE", `/v1/contacts/${contact.id}`)).status).toBe(204)
    expect((await api.call("POST", `/v1/contacts/${contact.id}/restore`)).status).toBe(200)
    const pipeline = (await api.call("GET", "/v1/pipelines")).body.data[0]
    const deal = (
      await api.call("POST", "/v1/deals", {
        body: { name: "Schema", pipeline_id: pipeline.id, contact_ids: [contact.id], value: 1200, currency: "EUR", region: "emea" }
      })
    ).body
    expect((await api.call("PATCH", `/v1/deals/${deal.id}`, { body: { name: "Schema+", expected_close_date: "2027-01-31" } })).status).toBe(
      200
    )
    const moved = await api.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: pipeline.stages[1].id, reason: "qualified" } })
    expect(moved.status, moved.text).toBe(200)
    expect((await api.call("DELETE", `/v1/deals/${deal.id}`)).status).toBe(204)
    expect((await api.call("POST", `/v1/deals/${deal.id}/restore`)).status).toBe(200)
    const company = (
      await api.call("POST", "/v1/companies", {
        body: { name: "Schema Inc", domain: `schema-${storage}.example.com`, size: 3, zone: "eu" }
      })
    ).body
    expect((await api.call("PATCH", `/v1/contacts/${contact.id}`, { body: { company_id: company.id } })).status).toBe(200)
    expect((await api.call("PATCH", `/v1/companies/${company.id}`, { body: { industry: "saas", zone: null } })).status).toBe(200)
    const activity = (
      await api.call("POST", "/v1/activities", {
        body: {
          type: "task",
          subject: "Schema",
          due_at: "2027-01-01T09:00:00Z",
          contact_ids: [contact.id],
          company_ids: [company.id],
          deal_ids: [deal.id],
          outcome: "won"
        }
      })
    ).body
    expect((await api.call("PATCH", `/v1/activities/${activity.id}`, { body: { done: true } })).status).toBe(200)
    for (const path of [`/v1/activities/${activity.id}`, `/v1/companies/${company.id}`]) {
      expect((await api.call("DELETE", path)).status).toBe(204)
      expect((await api.call("POST", `${path}/restore`)).status).toBe(200)
    }
    // A person's erasure: its tombstone is delivered (its contact.created may have been cancelled by it).
    const erased = (await api.call("POST", "/v1/contacts", { body: { email: "erased.schema@example.com" } })).body
    expect((await api.call("POST", `/v1/contacts/${erased.id}/erase`)).status).toBe(200)
    // A merge and its undoing, of contacts and of companies.
    for (const [collection, bodies, key] of [
      ["contacts", [{ email: "survivor.schema@example.com" }, { email: "merged.schema@example.com", tier: "gold" }], "contact_id"],
      ["companies", [{ name: "Survivor Inc" }, { name: "Merged Inc", zone: "eu" }], "company_id"]
    ] as const) {
      // One after the other: the last created of each type is checked below, and carries the custom field.
      const survivor = (await api.call("POST", `/v1/${collection}`, { body: bodies[0] })).body
      const merged = (await api.call("POST", `/v1/${collection}`, { body: bodies[1] })).body
      const merge = await api.call("POST", `/v1/${collection}/${survivor.id}/merge`, { body: { merge_ids: [merged.id] } })
      expect(merge.status, merge.text).toBe(200)
      const unmerge = await api.call("POST", `/v1/${collection}/${survivor.id}/unmerge`, { body: { [key]: merged.id } })
      expect(unmerge.status, unmerge.text).toBe(200)
    }
    await receiver.waitFor(
      (r) => r.length >= 23 && r.some((one) => one.json.type === "contact.erased") && r.some((one) => one.json.type === "company.unmerged"),
      "a delivery of each record event"
    )
    expect((await testWebhook(api, webhook.id)).body.status_code).toBe(200)

    // A retry would repeat its delivery's bytes: one of each type is what is checked. The erased
    // contact's own deliveries are left out, also one sent with its payload already redacted
    // (`{redacted: true}`), which a loaded machine's worker can send after the erasure.
    const byType = new Map(
      receiver.received
        .filter((r) => r.json.data?.contact?.id !== erased.id && r.json.data?.redacted !== true)
        .map((r) => [r.json.type as string, r.json.data as Record<string, any>])
    )
    expect([...byType.keys()].sort()).toEqual(
      [...EVENT_TYPES, ...LATER_EVENT_TYPES, ...ERASURE_EVENT_TYPES, ...MERGE_EVENT_TYPES, "webhook.test"].sort()
    )
    const { validators } = await eventTypesOf(api)
    for (const [type, data] of byType) expect(problemsOf(validators, type, data), type).toEqual([])
    expect(byType.get("contact.created")!.contact.tier).toBe("gold")
    expect(byType.get("deal.created")!.deal.region).toBe("emea")
    expect(byType.get("company.created")!.company.zone).toBe("eu")
    expect(byType.get("activity.created")!.activity.outcome).toBe("won")

    // The schemas can fail: each of these is refused.
    const created = byType.get("contact.created")!
    const { email: _, ...withoutEmail } = created.contact
    const refused: Array<[string, unknown]> = [
      ["contact.created", { contact: withoutEmail }],
      ["contact.created", { contact: { ...created.contact, tier: ["gold"] } }],
      ["contact.created", { ...created, changed_fields: [] }],
      ["contact.updated", { contact: created.contact }],
      ["contact.deleted", { id: 42 }],
      ["deal.stage_changed", { deal: byType.get("deal.stage_changed")!.deal }],
      ["deal.stage_changed", { ...byType.get("deal.stage_changed"), timeline_entry: { id: "tle_1" } }],
      ["deal.created", { deal: { ...byType.get("deal.created")!.deal, value: "1200" } }],
      ["deal.created", byType.get("contact.created")],
      ["company.created", { company: { ...byType.get("company.created")!.company, size: "3" } }],
      ["company.updated", { company: { ...byType.get("company.created")!.company, contact_ids: "none" }, changed_fields: [] }],
      ["activity.created", { activity: { ...byType.get("activity.created")!.activity, type: "lunch" } }],
      ["activity.restored", byType.get("company.restored")],
      ["webhook.test", {}]
    ]
    for (const [type, data] of refused)
      expect(problemsOf(validators, type, data), `${type} ${JSON.stringify(data).slice(0, 80)}`).not.toEqual([])
  })
})
