import { describe, expect, it } from "vitest"
import { hostFor, STORAGES } from "../http/client.js"
import { eventually } from "./receiver.js"
import { as, createContact, receiverForTest, register, type Scoped, WEBHOOK_API_KEYS, webhookWhen, workspaces } from "./support.js"

// A 410 turns the webhook failed at once; the retry schedule never comes into it.
const SCHEDULE = [200, 400, 800]

const jobWhen = (api: Scoped, webhookId: string, jobId: string, done: (job: Record<string, any>) => boolean, what: string) =>
  eventually(async () => {
    const answer = await api.call("GET", `/v1/webhooks/${webhookId}/recoveries/${jobId}`)
    expect(answer.status, answer.text).toBe(200)
    return done(answer.body) ? (answer.body as Record<string, any>) : undefined
  }, what)

describe.each(STORAGES)("webhook recovery on %s storage", { timeout: 90_000 }, (storage) => {
  const host = hostFor(storage, { apiKeys: WEBHOOK_API_KEYS, webhooks: { allowInsecure: true, retrySchedule: SCHEDULE } })
  const workspace = workspaces()

  it("reactivates a failed webhook and recovers what it missed in one PATCH: each event once, then the job is done", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    receiver.script({ status: 410 }, { status: 200 })
    const since = new Date(Date.now() - 1000).toISOString()
    const webhook = await register(api, receiver.url, { events: ["contact.created", "contact.updated"] })
    const first = await createContact(api, "first@example.com")
    await webhookWhen(api, webhook.id, (w) => w.status === "failed", "the webhook to fail on 410")
    // Recorded while it is failed: never scheduled for it.
    const missed = [await createContact(api, "b@example.com"), await createContact(api, "c@example.com")]
    expect((await api.call("PATCH", `/v1/contacts/${missed[0]!.id}`, { body: { title: "Late" } })).status).toBe(200)

    const refused = await api.call("POST", `/v1/webhooks/${webhook.id}/recover`, { body: { since } })
    expect(refused.status, refused.text).toBe(409)
    expect(refused.body.error.message).toMatch(/failed/)

    const patched = await api.call("PATCH", `/v1/webhooks/${webhook.id}`, { body: { status: "active", recover_since: since } })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body.status).toBe("active")
    expect(patched.body.recovery).toEqual({ id: expect.stringMatching(/^rcv_/), since })
    const jobId = patched.body.recovery.id as string

    const done = await jobWhen(api, webhook.id, jobId, (job) => job.status === "done", "the recovery to finish")
    // The first contact's delivery failed (410): it is sent again with the three missed events.
    expect(done).toMatchObject({ id: jobId, webhook_id: webhook.id, since, scheduled: 4, skipped: 0 })
    expect(done.finished_at).toEqual(expect.any(String))
    await receiver.waitFor((r) => r.length >= 5, "the 410 and the four recovered deliveries")
    const recovered = receiver.received.slice(1)
    const ids = recovered.map((r) => r.json.id)
    expect(new Set(ids).size).toBe(4)
    expect(recovered.map((r) => r.json.data.contact.id).sort()).toEqual([first.id, missed[0]!.id, missed[0]!.id, missed[1]!.id].sort())
    // The update's payload is the record as it stood after the update.
    expect(recovered.find((r) => r.json.type === "contact.updated")?.json.data).toMatchObject({
      contact: { title: "Late" },
      changed_fields: ["title"]
    })
    expect((await webhookWhen(api, webhook.id, (w) => w.recovery === null, "the webhook to be free")).status).toBe("active")

    // Everything since is delivered now: a second recovery schedules nothing and says why.
    const again = await api.call("POST", `/v1/webhooks/${webhook.id}/recover`, { body: { since } })
    expect(again.status, again.text).toBe(202)
    expect(again.headers.get("location")).toBe(`/v1/webhooks/${webhook.id}/recoveries/${again.body.id}`)
    const twice = await jobWhen(api, webhook.id, again.body.id, (job) => job.status === "done", "the second recovery")
    expect(twice).toMatchObject({ scheduled: 0, skipped: 4 })
    expect(receiver.received).toHaveLength(5)
  })

  it("answers 400 for a bad since, 404 for an unknown webhook or job, and replays under one Idempotency-Key", async () => {
    const api = as(host, workspace())
    const webhook = await register(api, "http://127.0.0.1:9/none", { events: ["contact.created"] })
    const other = await register(api, "http://127.0.0.1:9/other", { events: ["contact.created"] })
    for (const body of [{}, { since: "yesterday" }, { since: "2026-01-01T00:00:00Z", until: "x" }, []]) {
      const answer = await api.call("POST", `/v1/webhooks/${webhook.id}/recover`, { body })
      expect(answer.status, answer.text).toBe(400)
      expect(answer.body.error.code).toBe("validation_error")
    }
    expect((await api.call("PATCH", `/v1/webhooks/${webhook.id}`, { body: { recover_since: "soon" } })).status).toBe(400)
    expect((await api.call("POST", "/v1/webhooks/wh_nope/recover", { body: { since: "2026-01-01T00:00:00Z" } })).status).toBe(404)
    expect((await api.call("GET", `/v1/webhooks/${webhook.id}/recoveries/rcv_nope`)).status).toBe(404)

    const key = { "idempotency-key": `recover-${Date.now()}` }
    const started = await api.call("POST", `/v1/webhooks/${webhook.id}/recover`, { body: { since: "2026-01-01T00:00:00Z" }, headers: key })
    expect(started.status, started.text).toBe(202)
    const replayed = await api.call("POST", `/v1/webhooks/${webhook.id}/recover`, { body: { since: "2026-01-01T00:00:00Z" }, headers: key })
    expect(replayed.status).toBe(202)
    expect(replayed.body.id).toBe(started.body.id)
    // A job is read under its own webhook only.
    expect((await api.call("GET", `/v1/webhooks/${other.id}/recoveries/${started.body.id}`)).status).toBe(404)
    await jobWhen(api, webhook.id, started.body.id, (job) => job.status === "done", "the recovery to finish")
  })
})
