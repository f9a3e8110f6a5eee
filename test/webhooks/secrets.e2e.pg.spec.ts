import { verifyWebhookSignature } from "@dealstream/core"
import { randomBytes } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { hostFor, STORAGES } from "../http/client.js"
import type { Received } from "./receiver.js"
import { as, createContact, receiverForTest, register, WEBHOOK_API_KEYS, workspaces } from "./support.js"

const standardSecret = () => `whsec_${randomBytes(32).toString("base64")}`

/** Whether a Standard Webhooks library accepts the request with this secret, in its default mode or raw. */
const libraryVerifies = (secret: string, received: Received, format?: "raw") => {
  try {
    new Webhook(secret, format === undefined ? undefined : { format }).verify(received.rawBody, received.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

const signatures = (received: Received) => String(received.headers["webhook-signature"]).split(" ")

describe.each(STORAGES)("webhook secrets on %s storage", { timeout: 90_000 }, (storage) => {
  const host = hostFor(storage, { apiKeys: WEBHOOK_API_KEYS, webhooks: { allowInsecure: true } })
  const workspace = workspaces()

  it("signs with a whsec_ secret's decoded bytes: a Standard Webhooks library in its default mode verifies", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const secret = standardSecret()
    await register(api, receiver.url, { events: ["contact.created"], secret })
    await createContact(api, "standard@example.com")
    await receiver.waitFor((r) => r.length >= 1, "the delivery")
    const [received] = receiver.received
    expect(libraryVerifies(secret, received!)).toBe(true)
    expect(libraryVerifies(secret, received!, "raw")).toBe(false)
    expect(verifyWebhookSignature({ secret, headers: received!.headers, rawBody: received!.rawBody })).toBe(true)
  })

  it("rotates with an overlap: both signatures, newest first, until a rotation without one", async () => {
    const api = as(host, workspace())
    const receiver = await receiverForTest()
    const first = standardSecret()
    const webhook = await register(api, receiver.url, { events: ["contact.created"], secret: first })
    const rotated = await api.call("PATCH", `/v1/webhooks/${webhook.id}`, {
      body: { secret: "sk_second_0123456789", previous_secret_expires_in: 3600 }
    })
    expect(rotated.status, rotated.text).toBe(200)
    expect(rotated.body.has_secret).toBe(true)
    expect(rotated.body).not.toHaveProperty("previous_secret")

    await createContact(api, "overlap@example.com")
    await receiver.waitFor((r) => r.length >= 1, "the delivery during the overlap")
    const [during] = receiver.received
    expect(signatures(during!)).toHaveLength(2)
    expect(signatures(during!)[0]).toBe(during!.headers["x-service-signature"])
    // Receivers on either secret accept it, each in its own form.
    expect(libraryVerifies(first, during!)).toBe(true)
    expect(libraryVerifies("sk_second_0123456789", during!, "raw")).toBe(true)
    expect(
      verifyWebhookSignature({
        secret: "sk_second_0123456789",
        headers: { ...during!.headers, "webhook-signature": String(during!.headers["x-service-signature"]) },
        rawBody: during!.rawBody
      })
    ).toBe(true)

    // A rotation without an overlap retires both earlier secrets at once.
    expect((await api.call("PATCH", `/v1/webhooks/${webhook.id}`, { body: { secret: "sk_third_0123456789" } })).status).toBe(200)
    await createContact(api, "after@example.com")
    await receiver.waitFor((r) => r.length >= 2, "the delivery after the rotation")
    const after = receiver.received[1]!
    expect(signatures(after)).toHaveLength(1)
    expect(libraryVerifies("sk_third_0123456789", after, "raw")).toBe(true)
    expect(libraryVerifies(first, after)).toBe(false)
    expect(libraryVerifies("sk_second_0123456789", after, "raw")).toBe(false)
  })

  it("refuses a malformed whsec_ secret and an overlap without a new secret with 400, changing nothing", async () => {
    const api = as(host, workspace())
    const webhook = await register(api, "http://127.0.0.1:9/none", { events: ["contact.created"], secret: "sk_kept_0123456789" })
    const refusals: Array<[unknown, string]> = [
      [{ secret: "whsec_not-base64_0123456789" }, "secret"],
      [{ secret: `whsec_${randomBytes(16).toString("base64")}` }, "secret"],
      [{ previous_secret_expires_in: 60 }, "previous_secret_expires_in"],
      [{ secret: null, previous_secret_expires_in: 60 }, "previous_secret_expires_in"],
      [{ secret: "sk_next_0123456789", previous_secret_expires_in: 604801 }, "previous_secret_expires_in"]
    ]
    for (const [body, path] of refusals) {
      const answer = await api.call("PATCH", `/v1/webhooks/${webhook.id}`, { body })
      expect(answer.status, answer.text).toBe(400)
      expect(answer.body.error.code).toBe("validation_error")
      expect(answer.body.error.details.map((d: { path: string }) => d.path)).toEqual([path])
    }
    const created = await api.call("POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/x", events: ["*"], secret: "whsec_AAAA" } })
    expect(created.status).toBe(400)
    expect(created.body.error.details.map((d: { path: string }) => d.path)).toEqual(["secret"])
    const read = await api.call("GET", `/v1/webhooks/${webhook.id}`)
    expect(read.body.updated_at).toBe(read.body.created_at)
    expect((await api.call("GET", "/v1/webhooks")).body.data).toHaveLength(1)
  })
})
