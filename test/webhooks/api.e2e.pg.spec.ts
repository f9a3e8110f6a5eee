import { describe, expect, it, vi } from "vitest"
import { errorOf, hostFor, startHost, STORAGES } from "../http/client.js"
import {
  as,
  createContact,
  deliveriesOf,
  deliveryWhen,
  receiverForTest,
  register,
  WEBHOOK_API_KEYS,
  webhookWhen,
  workspaces
} from "./support.js"

const SECRET = "sk_api_0123456789"

describe.each(STORAGES)("webhooks API on %s storage", (storage) => {
  const host = hostFor(storage, {
    apiKeys: WEBHOOK_API_KEYS,
    webhooks: { allowInsecure: true, retrySchedule: [200, 400, 800], timeoutMillis: 3_000 }
  })
  const workspace = workspaces()

  it("creates with 201, Location and ETag, never returns the secret, reads, lists, patches with If-Match, deletes", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const created = await api.call("POST", "/v1/webhooks", {
      body: { url: `${receiver.url}/a`, events: ["deal.created", "deal.stage_changed"], secret: SECRET }
    })
    expect(created.status).toBe(201)
    const id = created.body.id as string
    expect(id).toMatch(/^wh_/)
    expect(created.headers.get("location")).toBe(`/v1/webhooks/${id}`)
    expect(created.headers.get("etag")).toBe('"1"')
    expect(created.body).toEqual({
      id,
      url: `${receiver.url}/a`,
      events: ["deal.created", "deal.stage_changed"],
      status: "active",
      last_delivery_at: null,
      has_secret: true,
      recovery: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: created.body.created_at
    })
    expect(created.text).not.toContain(SECRET)

    const read = await api.call("GET", `/v1/webhooks/${id}`)
    expect(read.status).toBe(200)
    expect(read.headers.get("etag")).toBe('"1"')
    expect(read.body).toEqual(created.body)

    const list = await api.call("GET", "/v1/webhooks")
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ data: [created.body], next_cursor: null })
    expect(list.text).not.toContain(SECRET)

    const stale = await api.call("PATCH", `/v1/webhooks/${id}`, { body: { events: ["*"] }, headers: { "if-match": '"7"' } })
    expect(stale.status).toBe(412)
    expect(errorOf(stale).code).toBe("precondition_failed")

    const patched = await api.call("PATCH", `/v1/webhooks/${id}`, {
      body: { events: ["*"], secret: null },
      headers: { "if-match": '"1"' }
    })
    expect(patched.status).toBe(200)
    expect(patched.headers.get("etag")).toBe('"2"')
    expect(patched.body).toMatchObject({ events: ["*"], has_secret: false, url: `${receiver.url}/a` })

    const staleDelete = await api.call("DELETE", `/v1/webhooks/${id}`, { headers: { "if-match": '"1"' } })
    expect(staleDelete.status).toBe(412)
    const deleted = await api.call("DELETE", `/v1/webhooks/${id}`, { headers: { "if-match": '"2"' } })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe("")
    expect((await api.call("GET", `/v1/webhooks/${id}`)).status).toBe(404)
    expect((await api.call("GET", "/v1/webhooks")).body.data).toEqual([])
    expect((await api.call("DELETE", `/v1/webhooks/${id}`)).status).toBe(404)
  })

  it("replays a create with the same Idempotency-Key, and refuses the key with another body", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const body = { url: receiver.url, events: ["contact.created"], secret: SECRET }
    const first = await api.call("POST", "/v1/webhooks", { body, headers: { "idempotency-key": "hook-1" } })
    const again = await api.call("POST", "/v1/webhooks", { body, headers: { "idempotency-key": "hook-1" } })
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.headers.get("location")).toBe(first.headers.get("location"))
    expect(again.body).toEqual(first.body)
    expect(again.text).not.toContain(SECRET)
    expect((await api.call("GET", "/v1/webhooks")).body.data).toHaveLength(1)
    const other = await api.call("POST", "/v1/webhooks", { body: { ...body, events: ["*"] }, headers: { "idempotency-key": "hook-1" } })
    expect(other.status).toBe(409)
    expect(errorOf(other).code).toBe("idempotency_conflict")
  })

  it('validates the body with paths: unknown event at events[i], "*" combined, bad url, secret, unknown keys', async () => {
    const api = as(host, workspace())
    const invalid = async (body: unknown, path: string, message?: RegExp) => {
      const answer = await api.call("POST", "/v1/webhooks", { body })
      expect(answer.status, answer.text).toBe(400)
      const error = errorOf(answer)
      expect(error.code).toBe("validation_error")
      const detail = error.details.find((d) => d.path === path)
      expect(detail, `a detail at ${path} in ${answer.text}`).toBeDefined()
      if (message !== undefined) expect(detail!.message).toMatch(message)
    }
    const url = "http://127.0.0.1:9/hook"
    await invalid({ url, events: ["contact.created", "deal.exploded"] }, "events[1]", /not a known event/)
    await invalid({ url, events: ["*", "x"] }, "events[1]", /not a known event/)
    await invalid({ url, events: ["*", "deal.created"] }, "events[0]", /cannot be combined/)
    await invalid({ url, events: [] }, "events", /empty/)
    await invalid({ url, events: "deal.created" }, "events")
    await invalid({ url }, "events", /required/)
    await invalid({ events: ["*"] }, "url", /required/)
    await invalid({ url: "not a url", events: ["*"] }, "url", /absolute URL/)
    await invalid({ url: "ftp://example.com/x", events: ["*"] }, "url")
    await invalid({ url: "http://user:pw@127.0.0.1/x", events: ["*"] }, "url", /credentials/)
    await invalid({ url, events: ["*"], secret: "short" }, "secret")
    await invalid({ url, events: ["*"], colour: "blue" }, "colour", /not a known field/)
    await invalid({ url, events: ["*"], status: "failed" }, "status", /read-only/)

    const webhook = await register(api, url, { events: ["contact.created"] })
    const patch = await api.call("PATCH", `/v1/webhooks/${webhook.id}`, { body: { status: "failed" } })
    expect(patch.status).toBe(400)
    expect(errorOf(patch).details).toEqual([{ path: "status", message: expect.stringContaining("active") }])
    const badEvent = await api.call("PATCH", `/v1/webhooks/${webhook.id}`, { body: { events: ["nope"] } })
    expect(errorOf(badEvent).details).toEqual([{ path: "events[0]", message: "is not a known event" }])
    const malformed = await api.call("POST", "/v1/webhooks", { raw: '{"url":', headers: { "content-type": "application/json" } })
    expect(malformed.status).toBe(400)
    expect(errorOf(malformed).code).toBe("invalid_json")
    const unknownQuery = await api.call("GET", `/v1/webhooks/${webhook.id}?verbose=1`)
    expect(unknownQuery.status).toBe(400)
  })

  it("lists deliveries newest first, filters by status, pages with a cursor, and checks its parameters", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    receiver.script((request) => (request.json?.data?.contact?.email?.startsWith("bad") ? { status: 500 } : { status: 200 }))
    const webhook = await register(api, receiver.url, { events: ["contact.created"] })
    for (const n of [1, 2, 3, 4]) await createContact(api, `good${n}@example.com`)
    await receiver.waitFor((r) => r.length === 4, "four deliveries")
    for (const d of await deliveriesOf(api, webhook.id)) {
      await deliveryWhen(api, webhook.id, d.id, (x) => x.status === "succeeded", "success")
    }
    await createContact(api, "bad@example.com")
    await webhookWhen(api, webhook.id, (w) => w.status === "failed", "the webhook to fail")

    const all = await deliveriesOf(api, webhook.id)
    expect(all).toHaveLength(5)
    expect(all[0]).not.toHaveProperty("attempts")
    const ids = all.map((d) => d.id as string)
    expect(ids).toEqual([...ids].sort().reverse())
    expect(all[0]).toMatchObject({ status: "failed", attempt_count: 4, event_type: "contact.created" })

    const succeeded = await deliveriesOf(api, webhook.id, "&status=succeeded")
    expect(succeeded.map((d) => d.id)).toEqual(ids.slice(1))
    expect((await deliveriesOf(api, webhook.id, "&status=failed")).map((d) => d.id)).toEqual([ids[0]])
    expect(await deliveriesOf(api, webhook.id, "&status=pending")).toEqual([])

    const walked: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const query: string = `/v1/webhooks/${webhook.id}/deliveries?limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      const page = await api.call("GET", query)
      expect(page.status).toBe(200)
      walked.push(...page.body.data.map((d: { id: string }) => d.id))
      cursor = page.body.next_cursor
      pages++
    } while (cursor !== null)
    expect(walked).toEqual(ids)
    expect(pages).toBe(3)

    for (const [query, path] of [
      ["status=lost", "status"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["cursor=zzz", "cursor"],
      ["sort=id", "sort"]
    ]) {
      const answer = await api.call("GET", `/v1/webhooks/${webhook.id}/deliveries?${query}`)
      expect(answer.status, query).toBe(400)
      expect(
        errorOf(answer).details.map((d) => d.path),
        query
      ).toContain(path)
    }

    const one = await api.call("GET", `/v1/webhooks/${webhook.id}/deliveries/${ids[0]}`)
    expect(one.status).toBe(200)
    expect(one.headers.get("etag")).toMatch(/^"\d+"$/)
    expect(Object.keys(one.body).sort()).toEqual([
      "attempt_count",
      "attempts",
      "created_at",
      "event_id",
      "event_type",
      "id",
      "last_attempt_at",
      "last_error",
      "last_status_code",
      "next_attempt_at",
      "replay_of",
      "status",
      "webhook_id"
    ])
    expect(one.body.attempts).toHaveLength(4)
    expect((await api.call("GET", `/v1/webhooks/${webhook.id}`)).body.last_delivery_at).toBe(one.body.last_attempt_at)
  })

  it("answers 404 for another workspace's webhooks and deliveries, and for a delivery of another webhook", async () => {
    const owner = as(host, workspace())
    const stranger = as(host, workspace())
    const receiver = await receiverForTest()
    const webhook = await register(owner, receiver.url, { events: ["contact.created"] })
    const sibling = await register(owner, receiver.url, { events: ["deal.created"] })
    await createContact(owner, "mine@example.com")
    await receiver.waitFor((r) => r.length === 1, "the delivery")
    const deliveryId = String(receiver.received[0]!.headers["x-service-delivery"])
    await deliveryWhen(owner, webhook.id, deliveryId, (d) => d.status === "succeeded", "success")

    const base = `/v1/webhooks/${webhook.id}`
    for (const [method, path, body] of [
      ["GET", base, undefined],
      ["PATCH", base, { events: ["*"] }],
      ["DELETE", base, undefined],
      ["GET", `${base}/deliveries`, undefined],
      ["GET", `${base}/deliveries/${deliveryId}`, undefined],
      ["POST", `${base}/deliveries/${deliveryId}/replay`, undefined]
    ] as const) {
      const answer = await stranger.call(method, path, body === undefined ? {} : { body })
      expect(answer.status, `${method} ${path}`).toBe(404)
      expect(errorOf(answer).code).toBe("not_found")
    }
    expect((await stranger.call("GET", "/v1/webhooks")).body.data).toEqual([])

    // The delivery exists, but not under this webhook.
    expect((await owner.call("GET", `/v1/webhooks/${sibling.id}/deliveries/${deliveryId}`)).status).toBe(404)
    expect((await owner.call("POST", `/v1/webhooks/${sibling.id}/deliveries/${deliveryId}/replay`)).status).toBe(404)
    expect((await owner.call("GET", `${base}/deliveries/dlv_nope`)).status).toBe(404)
    // Still there for its owner.
    expect((await owner.call("GET", base)).status).toBe(200)
    expect((await owner.call("GET", `${base}/deliveries/${deliveryId}`)).status).toBe(200)
  })
})

describe.each(STORAGES)("webhook targets without the insecure switch on %s storage", (storage) => {
  const host = hostFor(storage, { apiKeys: WEBHOOK_API_KEYS })
  const workspace = workspaces()

  it("refuses loopback, private, link-local and names resolving to them at url; accepts a public address", async () => {
    const api = as(host, workspace())
    for (const url of [
      "http://127.0.0.1/hook",
      "https://127.0.0.1/hook",
      "https://10.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[::ffff:7f00:1]/hook",
      "https://localhost/hook",
      "https://nothing.invalid/hook"
    ]) {
      const answer = await api.call("POST", "/v1/webhooks", { body: { url, events: ["*"] } })
      expect(answer.status, url).toBe(400)
      const error = errorOf(answer)
      expect(error.code).toBe("validation_error")
      expect(
        error.details.map((d) => d.path),
        url
      ).toEqual(["url"])
    }
    const localhost = await api.call("POST", "/v1/webhooks", { body: { url: "https://localhost/hook", events: ["*"] } })
    expect(errorOf(localhost).details[0]!.message).toBe("resolves to a private address")
    const unresolved = await api.call("POST", "/v1/webhooks", { body: { url: "https://nothing.invalid/hook", events: ["*"] } })
    expect(errorOf(unresolved).details[0]!.message).toBe("does not resolve")
    expect((await api.call("GET", "/v1/webhooks")).body.data).toEqual([])

    // A public IP literal passes the same checks (no DNS needed); a PATCH to a private one does not.
    const publicHook = await register(api, "https://93.184.215.14/hook", { events: ["deal.deleted"] })
    const patched = await api.call("PATCH", `/v1/webhooks/${publicHook.id}`, { body: { url: "https://localhost/x" } })
    expect(patched.status).toBe(400)
    expect(errorOf(patched).details[0]!.path).toBe("url")
    expect((await api.call("DELETE", `/v1/webhooks/${publicHook.id}`)).status).toBe(204)
  })
})

describe("secrets in the request log", () => {
  it("never writes a webhook secret to the log", async () => {
    const lines: Array<string> = []
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk))
      return true
    })
    const host = await startHost({ log: true, webhooks: { allowInsecure: true } })
    try {
      const created = await host.call("POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/x", events: ["*"], secret: SECRET } })
      expect(created.status).toBe(201)
      await host.call("PATCH", `/v1/webhooks/${created.body.id}`, { body: { secret: `${SECRET}_2` } })
      await host.call("POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/x", events: ["bogus"], secret: SECRET } })
    } finally {
      await host.close()
      write.mockRestore()
    }
    expect(lines.some((line) => line.includes("/v1/webhooks"))).toBe(true)
    expect(lines.join("")).not.toContain(SECRET)
  })
})
