import { verifyWebhookSignature } from "@dealstream/core"
import { Webhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { hostFor, STORAGES } from "../http/client.js"
import { eventually, type Received } from "./receiver.js"
import {
  as,
  createContact,
  deliveriesOf,
  deliveryWhen,
  EVENT_TYPES,
  receiverForTest,
  register,
  type Scoped,
  WEBHOOK_API_KEYS,
  webhookWhen,
  workspaces
} from "./support.js"

// Real hosts (memory and PostgreSQL) deliver to a real receiver on 127.0.0.1, on a fast schedule:
// retries after 200, 400 and 800 ms (±20%), so a delivery is exhausted after 4 attempts.
const SCHEDULE = [200, 400, 800]
// Far longer than any test waits for an attempt to end: a held attempt ends only when the test
// releases it or a DELETE aborts it, never by a timeout racing a loaded machine.
const TIMEOUT_MS = 120_000
const SECRET = "sk_test_0123456789"

/**
 * Every delivery of the webhook finished (none pending), and the receiver got exactly the attempts
 * they recorded: the worker's own record that nothing more is queued. A send is made before its
 * attempt is recorded, so once all are recorded every send has arrived; one more could only come
 * from a delivery sent without being recorded, which is what the count catches.
 */
const settled = async (api: Scoped, webhookId: string, receivers: ReadonlyArray<{ readonly received: ReadonlyArray<Received> }>) => {
  const deliveries = await eventually(async () => {
    const all = await deliveriesOf(api, webhookId)
    return all.every((d) => d.status !== "pending") ? all : undefined
  }, "every delivery to finish")
  const attempts = deliveries.reduce((sum, d) => sum + Number(d.attempt_count), 0)
  expect(
    receivers.reduce((sum, r) => sum + r.received.length, 0),
    "requests received against attempts recorded"
  ).toBe(attempts)
  return deliveries
}

/**
 * "Nothing more arrives", awaited rather than slept on: a marker webhook of the same workspace, on
 * a receiver of its own that fails its first `failures` attempts, is sent the event `trigger` makes
 * (a contact.created). Its last attempt is due at least the schedule's first `failures` delays less
 * 20% after the trigger (480 ms for 2, 1,120 ms for 3); the worker claims everything due, in due
 * order, so by the time that attempt has been recorded, whatever else was due by then (a retry the
 * rules forbid, a delivery to a deleted or failed webhook) has been sent too.
 */
const afterMarker = async (api: Scoped, failures: 2 | 3, trigger: () => Promise<unknown>) => {
  const marker = await receiverForTest()
  marker.script(...Array.from({ length: failures }, () => ({ status: 500 })), { status: 200 })
  const webhook = await register(api, `${marker.url}/marker`, { events: ["contact.created"] })
  await trigger()
  const [delivery] = await deliveriesOf(api, webhook.id)
  await deliveryWhen(api, webhook.id, delivery!.id, (d) => d.status === "succeeded", "the marker delivery")
  expect(marker.received).toHaveLength(failures + 1)
}

const header = (received: Received, name: string) => received.headers[name] as string | undefined

const verifiesWith = (secret: string, received: Received) => {
  const library = (() => {
    try {
      new Webhook(secret, { format: "raw" }).verify(received.rawBody, received.headers as Record<string, string>)
      return true
    } catch {
      return false
    }
  })()
  const ours = verifyWebhookSignature({ secret, headers: received.headers, rawBody: received.rawBody })
  expect(ours, "verifyWebhookSignature and standardwebhooks agree").toBe(library)
  return library
}

// Waits for events have deadlines of up to 30 s (a loaded machine); the tests may take longer.
describe.each(STORAGES)("webhook deliveries on %s storage", { timeout: 90_000 }, (storage) => {
  const host = hostFor(storage, {
    apiKeys: WEBHOOK_API_KEYS,
    webhooks: { allowInsecure: true, retrySchedule: SCHEDULE, timeoutMillis: TIMEOUT_MS }
  })
  const workspace = workspaces()

  it("delivers each of the nine event types, signed, with the payload and headers of API.md", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const webhook = await register(api, `${receiver.url}/hooks`, { secret: SECRET })

    // Every attempt starts after this second: its webhook-timestamp is no earlier.
    const before = Math.floor(Date.now() / 1000)
    const contact = await createContact(api, "nine@example.com")
    expect((await api.call("PATCH", `/v1/contacts/${contact.id}`, { body: { first_name: "Nina" } })).status).toBe(200)
    expect((await api.call("DELETE", `/v1/contacts/${contact.id}`)).status).toBe(204)
    expect((await api.call("POST", `/v1/contacts/${contact.id}/restore`)).status).toBe(200)
    const pipeline = (await api.call("GET", "/v1/pipelines")).body.data[0]
    const deal = (await api.call("POST", "/v1/deals", { body: { name: "Nine", pipeline_id: pipeline.id, contact_ids: [contact.id] } })).body
    expect((await api.call("PATCH", `/v1/deals/${deal.id}`, { body: { name: "Nine+" } })).status).toBe(200)
    const moved = await api.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: pipeline.stages[1].id, reason: "qualified" } })
    expect(moved.status).toBe(200)
    expect((await api.call("DELETE", `/v1/deals/${deal.id}`)).status).toBe(204)
    expect((await api.call("POST", `/v1/deals/${deal.id}/restore`)).status).toBe(200)

    await receiver.waitFor((r) => r.length >= 9, "nine deliveries")
    const recorded = await settled(api, webhook.id, [receiver])
    expect(receiver.received).toHaveLength(9)
    const bySequence = [...receiver.received].sort((a, b) => a.json.sequence - b.json.sequence)
    expect(bySequence.map((r) => r.json.type)).toEqual(EVENT_TYPES)

    for (const received of bySequence) {
      const payload = received.json
      expect(received.method).toBe("POST")
      expect(received.path).toBe("/hooks")
      expect(Object.keys(payload).sort()).toEqual(["created_at", "data", "id", "sequence", "type", "workspace_id"])
      expect(payload.id).toMatch(/^evt_/)
      expect(payload.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(payload.workspace_id).toBe(api.workspaceId)
      expect(Number.isInteger(payload.sequence)).toBe(true)

      expect(header(received, "content-type")).toBe("application/json")
      expect(header(received, "user-agent")).toBe("dealstream-webhooks/1")
      expect(header(received, "x-service-event")).toBe(payload.type)
      expect(header(received, "x-service-delivery")).toMatch(/^dlv_/)
      expect(header(received, "webhook-id")).toBe(payload.id)
      // The second the attempt started: after the writes began, no later than its arrival.
      expect(Number(header(received, "webhook-timestamp"))).toBeGreaterThanOrEqual(before)
      expect(Number(header(received, "webhook-timestamp"))).toBeLessThanOrEqual(Math.floor(received.at / 1000))
      expect(header(received, "webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
      expect(header(received, "x-service-signature")).toBe(header(received, "webhook-signature"))

      expect(verifiesWith(SECRET, received)).toBe(true)
      expect(verifiesWith("another_secret_123", received)).toBe(false)
      // One byte changed and the signature no longer holds.
      const tampered = { ...received, rawBody: Buffer.from(received.rawBody.toString("utf8").replace('"sequence":', '"sequence": ')) }
      expect(verifiesWith(SECRET, tampered)).toBe(false)
    }
    // The body is the exact JSON that was signed: no re-serialisation on the way.
    expect(bySequence.every((r) => JSON.stringify(r.json) === r.rawBody.toString("utf8"))).toBe(true)

    const data = Object.fromEntries(bySequence.map((r) => [r.json.type, r.json.data]))
    expect(Object.keys(data["contact.created"])).toEqual(["contact"])
    expect(data["contact.created"].contact).toMatchObject({ id: contact.id, email: "nine@example.com" })
    expect(data["contact.updated"]).toMatchObject({ contact: { id: contact.id, first_name: "Nina" } })
    expect(data["contact.updated"].changed_fields).toEqual(["first_name"])
    expect(data["contact.deleted"]).toEqual({ id: contact.id })
    expect(Object.keys(data["contact.restored"])).toEqual(["contact"])
    expect(data["deal.created"]).toEqual({ deal: expect.objectContaining({ id: deal.id, name: "Nine", contact_ids: [contact.id] }) })
    expect(data["deal.updated"]).toMatchObject({ deal: { id: deal.id, name: "Nine+" }, changed_fields: ["name"] })
    expect(data["deal.stage_changed"].deal).toMatchObject({ id: deal.id, stage_id: pipeline.stages[1].id })
    expect(data["deal.stage_changed"].timeline_entry).toMatchObject({
      deal_id: deal.id,
      from_stage_id: pipeline.stages[0].id,
      to_stage_id: pipeline.stages[1].id,
      reason: "qualified"
    })
    expect(data["deal.deleted"]).toEqual({ id: deal.id })
    expect(data["deal.restored"]).toEqual({ deal: expect.objectContaining({ id: deal.id, name: "Nine+" }) })

    // Every delivery is recorded as succeeded with its one attempt.
    expect(recorded).toHaveLength(9)
    expect(recorded.every((d) => d.status === "succeeded" && d.attempt_count === 1 && d.last_status_code === 200)).toBe(true)
    expect((await api.call("GET", `/v1/webhooks/${webhook.id}`)).body.last_delivery_at).toMatch(/Z$/)
  })

  it("sends only subscribed events, and no signature headers without a secret", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const webhook = await register(api, receiver.url, { events: ["contact.updated"] })
    const contact = await createContact(api, "unsigned@example.com")
    await api.call("PATCH", `/v1/contacts/${contact.id}`, { body: { title: "CTO" } })
    // Deliveries are scheduled in the commit of their event: answered writes have all of theirs.
    expect((await deliveriesOf(api, webhook.id)).map((d) => d.event_type)).toEqual(["contact.updated"])
    await settled(api, webhook.id, [receiver])
    expect(receiver.received.map((r) => r.json.type)).toEqual(["contact.updated"])
    const [received] = receiver.received
    expect(received!.headers).not.toHaveProperty("webhook-signature")
    expect(received!.headers).not.toHaveProperty("x-service-signature")
    expect(received!.headers["webhook-id"]).toBe(received!.json.id)
  })

  it("retries after a 500 and records both attempts; the retry keeps the webhook-id", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    receiver.script({ status: 500, body: "oops" }, { status: 200 })
    const webhook = await register(api, receiver.url, { events: ["contact.created"], secret: SECRET })
    await createContact(api, "retry@example.com")
    await receiver.waitFor((r) => r.length === 2, "the retry")
    const [first, second] = receiver.received
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"])
    expect(second!.headers["x-service-delivery"]).toBe(first!.headers["x-service-delivery"])
    expect(second!.rawBody.equals(first!.rawBody)).toBe(true)
    expect(verifiesWith(SECRET, second!)).toBe(true)
    // The first retry waits 200 ms ±20% from the record of the first attempt, which comes after the
    // receiver has it: a lower bound, which no load can break (load only makes the gap longer).
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(150)

    const deliveryId = String(first!.headers["x-service-delivery"])
    const delivery = await deliveryWhen(api, webhook.id, deliveryId, (d) => d.status === "succeeded", "the delivery to succeed")
    expect(delivery).toMatchObject({ attempt_count: 2, last_status_code: 200, last_error: null, next_attempt_at: null, replay_of: null })
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200])
    expect(delivery.attempts.every((a: { duration_ms: number; error: null }) => a.duration_ms >= 0 && a.error === null)).toBe(true)
    expect(Date.parse(delivery.attempts[1].attempted_at) - Date.parse(delivery.attempts[0].attempted_at)).toBeGreaterThanOrEqual(160)
    await settled(api, webhook.id, [receiver])
  })

  it("fails the delivery and the webhook when the schedule is exhausted; nothing new until reactivated", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    receiver.script({ status: 500 })
    const webhook = await register(api, receiver.url, { events: ["contact.created"] })
    await createContact(api, "exhaust@example.com")
    await receiver.waitFor((r) => r.length === 4, "four attempts")
    const deliveryId = String(receiver.received[0]!.headers["x-service-delivery"])
    const delivery = await deliveryWhen(api, webhook.id, deliveryId, (d) => d.status === "failed", "the delivery to fail")
    expect(delivery.attempt_count).toBe(4)
    expect(delivery.next_attempt_at).toBeNull()
    await webhookWhen(api, webhook.id, (w) => w.status === "failed", "the webhook to fail")

    // Nothing more is queued for it (the worker's own record), and it sent exactly what it recorded.
    await settled(api, webhook.id, [receiver])
    expect(receiver.received).toHaveLength(4)

    // A failed webhook is not scheduled for new events (decided in the event's own commit).
    receiver.script({ status: 200 })
    await createContact(api, "ignored@example.com")
    expect(await deliveriesOf(api, webhook.id)).toHaveLength(1)

    // A replay is sent whatever the webhook's status.
    const replay = await api.call("POST", `/v1/webhooks/${webhook.id}/deliveries/${deliveryId}/replay`)
    expect(replay.status).toBe(202)
    await receiver.waitFor((r) => r.length === 5, "the replay")
    expect(receiver.received[4]!.headers["x-service-delivery"]).toBe(replay.body.id)
    expect(receiver.received[4]!.json.data.contact.email).toBe("exhaust@example.com")

    const reactivated = await api.call("PATCH", `/v1/webhooks/${webhook.id}`, { body: { status: "active" } })
    expect(reactivated.status).toBe(200)
    expect(reactivated.body.status).toBe("active")
    // The contact made after reactivation is also the marker's event: its last attempt is due after
    // any fifth attempt of the exhausted delivery could have been (800 ms ±20% after the fourth).
    await afterMarker(api, 3, () => createContact(api, "after@example.com"))
    await receiver.waitFor((r) => r.length === 6, "a delivery after reactivation")
    expect(receiver.received[5]!.json.data.contact.email).toBe("after@example.com")
    const deliveries = await settled(api, webhook.id, [receiver])
    expect(deliveries.map((d) => [d.status, d.attempt_count])).toEqual([
      ["succeeded", 1],
      ["succeeded", 1],
      ["failed", 4]
    ])
  })

  it("honours Retry-After on 429 within [delay, 2·delay]", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    // Asks for 60 s; the first retry is scheduled at 200 ms, so the wait is clamped to 400 ms. The
    // retry is held while the test reads the wait the worker chose from its own record.
    receiver.script({ status: 429, headers: { "retry-after": "60" } }, "hold")
    const webhook = await register(api, receiver.url, { events: ["contact.created"] })
    await createContact(api, "slow-down@example.com")
    // Honoured in full, the retry would come 60 s later: one within 30 s was clamped.
    await receiver.waitFor((r) => r.length === 2, "the retry", 30_000)
    const deliveryId = String(receiver.received[0]!.headers["x-service-delivery"])
    const waiting = await deliveryWhen(api, webhook.id, deliveryId, (d) => d.attempt_count === 1, "the first attempt's record")
    // Without Retry-After it would be 160..240 ms; honoured and clamped it is exactly 2 × 200 ms.
    expect(Date.parse(waiting.next_attempt_at) - Date.parse(waiting.attempts[0].attempted_at)).toBe(400)
    // And it was not sent earlier than that (a lower bound: load only makes the gap longer).
    expect(receiver.received[1]!.at - receiver.received[0]!.at).toBeGreaterThanOrEqual(390)
    receiver.release({ status: 200 })
    const delivery = await deliveryWhen(api, webhook.id, deliveryId, (d) => d.status === "succeeded", "success")
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([429, 200])
  })

  it("turns the webhook failed at once on 410 Gone", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    receiver.script({ status: 410 })
    const webhook = await register(api, receiver.url, { events: ["contact.created"] })
    await createContact(api, "gone@example.com")
    await webhookWhen(api, webhook.id, (w) => w.status === "failed", "the webhook to fail")
    const [delivery] = await deliveriesOf(api, webhook.id)
    expect(delivery).toMatchObject({ status: "failed", attempt_count: 1, last_status_code: 410, next_attempt_at: null })
    // No retry after a 410: the marker's last attempt is due after one could have been.
    await afterMarker(api, 2, () => createContact(api, "marker-410@example.com"))
    await settled(api, webhook.id, [receiver])
    expect(receiver.received).toHaveLength(1)
  })

  it("replays with the same webhook-id, a new delivery id, signed with the current secret, to the current URL", async () => {
    const api = as(host, workspace())
    const first = await receiverForTest()
    const second = await receiverForTest()
    const webhook = await register(api, `${first.url}/old`, { events: ["contact.created"], secret: SECRET })
    await createContact(api, "replay@example.com")
    await first.waitFor((r) => r.length === 1, "the delivery")
    const original = first.received[0]!
    const originalId = String(original.headers["x-service-delivery"])
    await deliveryWhen(api, webhook.id, originalId, (d) => d.status === "succeeded", "the original to be recorded")

    const newSecret = "sk_rotated_9876543210"
    const patched = await api.call("PATCH", `/v1/webhooks/${webhook.id}`, { body: { url: `${second.url}/new`, secret: newSecret } })
    expect(patched.status).toBe(200)

    const replay = await api.call("POST", `/v1/webhooks/${webhook.id}/deliveries/${originalId}/replay`, {
      headers: { "idempotency-key": "replay-once" }
    })
    expect(replay.status).toBe(202)
    expect(replay.body.id).toMatch(/^dlv_/)
    expect(replay.body.id).not.toBe(originalId)
    expect(replay.headers.get("location")).toBe(`/v1/webhooks/${webhook.id}/deliveries/${replay.body.id}`)
    expect(replay.body).toMatchObject({ replay_of: originalId, event_id: original.json.id, webhook_id: webhook.id })
    // The answer reads the delivery after waking the workers: it may already have been sent.
    expect(["pending", "succeeded"]).toContain(replay.body.status)
    // The same Idempotency-Key replays the answer and queues nothing more.
    const again = await api.call("POST", `/v1/webhooks/${webhook.id}/deliveries/${originalId}/replay`, {
      headers: { "idempotency-key": "replay-once" }
    })
    expect(again.status).toBe(202)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body.id).toBe(replay.body.id)

    await second.waitFor((r) => r.length === 1, "the replay at the new URL")
    // One replay queued (the second request replayed the answer), each sent once.
    const deliveries = await settled(api, webhook.id, [first, second])
    expect(deliveries.filter((d) => d.replay_of === originalId).map((d) => d.id)).toEqual([replay.body.id])
    expect(second.received).toHaveLength(1)
    const replayed = second.received[0]!
    expect(replayed.path).toBe("/new")
    expect(replayed.headers["webhook-id"]).toBe(original.headers["webhook-id"])
    expect(replayed.headers["x-service-delivery"]).toBe(replay.body.id)
    expect(replayed.rawBody.equals(original.rawBody)).toBe(true)
    expect(verifiesWith(newSecret, replayed)).toBe(true)
    expect(verifiesWith(SECRET, replayed)).toBe(false)
    expect(first.received).toHaveLength(1)

    const recorded = await deliveryWhen(api, webhook.id, replay.body.id, (d) => d.status === "succeeded", "the replay to be recorded")
    expect(recorded.replay_of).toBe(originalId)
  })

  it("DELETE during a slow attempt aborts it: the receiver sees the connection closed and nothing afterwards", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    receiver.script("hold")
    const webhook = await register(api, receiver.url, { events: ["contact.created"] })
    await createContact(api, "held@example.com")
    await receiver.waitFor((r) => r.length === 1, "the held attempt")

    const deleted = await api.call("DELETE", `/v1/webhooks/${webhook.id}`)
    expect(deleted.status).toBe(204)
    // Aborted by the delete: the attempt's own timeout is far beyond this wait.
    await receiver.waitFor(() => receiver.aborted.length === 1, "the attempt to be aborted", 30_000)

    expect((await api.call("GET", `/v1/webhooks/${webhook.id}`)).status).toBe(404)
    expect((await api.call("GET", `/v1/webhooks/${webhook.id}/deliveries`)).status).toBe(404)
    // No retry of the cancelled delivery (it would be due 200 ms ±20% after the abort), no new event:
    // the contact made after the delete is the marker's event, whose last attempt is due later.
    receiver.script({ status: 200 })
    await afterMarker(api, 2, () => createContact(api, "after-delete@example.com"))
    expect(receiver.received).toHaveLength(1)
  })

  it("PATCH during a slow attempt does not interrupt it: it completes and is recorded", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    receiver.script("hold")
    const webhook = await register(api, receiver.url, { events: ["contact.created"], secret: SECRET })
    await createContact(api, "patch-held@example.com")
    await receiver.waitFor((r) => r.length === 1, "the held attempt")

    const patched = await api.call("PATCH", `/v1/webhooks/${webhook.id}`, {
      body: { events: ["contact.created", "contact.updated"], secret: "sk_changed_0000000" }
    })
    expect(patched.status).toBe(200)
    // Had the PATCH aborted the attempt, the release below would go nowhere and no attempt would
    // ever be recorded; the record also shows the attempt lasted until the release.
    const releasedAt = Date.now()
    receiver.release({ status: 200 })

    const deliveryId = String(receiver.received[0]!.headers["x-service-delivery"])
    const delivery = await deliveryWhen(api, webhook.id, deliveryId, (d) => d.status === "succeeded", "the held attempt to be recorded")
    expect(delivery.attempt_count).toBe(1)
    expect(delivery.attempts[0].status_code).toBe(200)
    expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(releasedAt - receiver.received[0]!.at)
    expect(receiver.aborted).toHaveLength(0)
    expect(verifiesWith(SECRET, receiver.received[0]!)).toBe(true)
  })

  it("records a timeout or refused connection as an attempt error and retries", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const url = receiver.url
    await receiver.close()
    const webhook = await register(api, url, { events: ["contact.created"] })
    await createContact(api, "refused@example.com")
    const [pending] = await deliveriesOf(api, webhook.id)
    const delivery = await deliveryWhen(api, webhook.id, pending!.id, (d) => d.attempt_count >= 1, "an attempt")
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: "connection refused" })
    expect(delivery.last_error).toBe("connection refused")
  })
})
