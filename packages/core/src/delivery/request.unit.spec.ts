import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { verifyWebhookSignature } from "../webhook/signature.js"
import type { DeliveryScheduled } from "./events.js"
import { DeliveryDocument, projectDelivery } from "./projection.js"
import { deliveryRequest, testRequest } from "./request.js"

const at = "2026-01-01T00:00:00.000Z"
const scheduled: DeliveryScheduled = {
  type: "delivery.scheduled",
  data: {
    id: "dlv_1",
    webhook_id: "wh_1",
    event_id: "evt_1",
    event_type: "contact.created",
    event_stream_id: "con_1",
    event_version: 1,
    event_created_at: at,
    payload_data: { contact: { id: "con_1", email: "ada@example.com" } },
    replay_of: null,
    at
  }
}
// The document as the projection writes it, read back as the worker reads it.
const delivery = Schema.decodeUnknownSync(DeliveryDocument)(projectDelivery(null, scheduled)!.data)
const timestamp = 1_767_225_600
const secret = "a webhook secret"

describe("deliveryRequest", () => {
  it("POSTs the event's payload to the webhook's URL with the Standard Webhooks headers", () => {
    const request = deliveryRequest({
      delivery,
      workspaceId: "acme",
      webhook: { url: "https://example.com/hook", secret: null },
      sequence: 42,
      timestamp
    })
    expect(request.url).toBe("https://example.com/hook")
    expect(request.body).toBe(
      `{"id":"evt_1","type":"contact.created","created_at":"${at}","workspace_id":"acme","sequence":42,` +
        `"data":{"contact":{"id":"con_1","email":"ada@example.com"}}}`
    )
    expect(request.headers).toEqual({
      "content-type": "application/json",
      "user-agent": "dealstream-webhooks/1",
      "x-service-event": "contact.created",
      "x-service-delivery": "dlv_1",
      "x-service-event-id": "evt_1",
      "webhook-id": "evt_1",
      "webhook-timestamp": String(timestamp)
    })
  })

  it("signs the exact body with the webhook's secret, under both signature headers", () => {
    const request = deliveryRequest({
      delivery,
      workspaceId: "acme",
      webhook: { url: "https://example.com/hook", secret },
      sequence: 42,
      timestamp
    })
    const signature = request.headers["webhook-signature"]!
    expect(request.headers["x-service-signature"]).toBe(signature)
    const headers = { "webhook-id": "evt_1", "webhook-timestamp": String(timestamp), "webhook-signature": signature }
    expect(verifyWebhookSignature({ secret, headers, rawBody: request.body, now: timestamp })).toBe(true)
  })

  it("makes the same body on every attempt and a new signature with each timestamp", () => {
    const attempt = (seconds: number) =>
      deliveryRequest({
        delivery,
        workspaceId: "acme",
        webhook: { url: "https://example.com/hook", secret },
        sequence: 42,
        timestamp: seconds
      })
    const first = attempt(timestamp)
    const second = attempt(timestamp + 300)
    expect(second.body).toBe(first.body)
    expect(second.headers["webhook-signature"]).not.toBe(first.headers["webhook-signature"])
  })

  it("signs with the new and the old secret during a rotation's overlap, newest first, and the new alone after", () => {
    const webhook = {
      url: "https://example.com/hook",
      secret: "sk_new_0123456789",
      previous_secret: { secret, expires_at: new Date((timestamp + 10) * 1000).toISOString() }
    }
    const during = deliveryRequest({ delivery, workspaceId: "acme", webhook, sequence: 42, timestamp })
    const signatures = during.headers["webhook-signature"]!.split(" ")
    expect(signatures).toHaveLength(2)
    expect(during.headers["x-service-signature"]).toBe(signatures[0])
    const verifies = (key: string, headers: Readonly<Record<string, string>>, body: string) =>
      verifyWebhookSignature({ secret: key, format: "raw", headers, rawBody: body, now: timestamp })
    expect(verifies("sk_new_0123456789", during.headers, during.body)).toBe(true)
    expect(verifies(secret, during.headers, during.body)).toBe(true)
    expect(verifies(secret, { ...during.headers, "webhook-signature": signatures[0]! }, during.body)).toBe(false)

    const after = deliveryRequest({ delivery, workspaceId: "acme", webhook, sequence: 42, timestamp: timestamp + 10 })
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1)
    expect(verifyWebhookSignature({ secret, format: "raw", headers: after.headers, rawBody: after.body, now: timestamp + 10 })).toBe(false)
  })

  it("signs a whsec_ secret stored without the standard mark with its characters, as before such secrets were decoded", () => {
    const legacy = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    const request = (standard: boolean) =>
      deliveryRequest({
        delivery,
        workspaceId: "acme",
        webhook: { url: "https://example.com/hook", secret: legacy, secret_standard: standard },
        sequence: 1,
        timestamp
      })
    const verifies = (format: "raw" | "standard", standard: boolean) =>
      verifyWebhookSignature({
        secret: legacy,
        format,
        headers: request(standard).headers,
        rawBody: request(standard).body,
        now: timestamp
      })
    expect([verifies("raw", false), verifies("standard", false)]).toEqual([true, false])
    expect([verifies("raw", true), verifies("standard", true)]).toEqual([false, true])
  })
})

describe("testRequest", () => {
  const webhook = { id: "wh_1", url: "https://example.com/hook", secret }
  const test = (target: Parameters<typeof testRequest>[0]["webhook"]) =>
    testRequest({ webhook: target, workspaceId: "acme", eventId: "evt_test", at: timestamp * 1000 + 250 })

  it("POSTs webhook.test naming the webhook, at sequence 0, with a delivery's headers but X-Service-Delivery", () => {
    const request = test(webhook)
    expect(request.url).toBe("https://example.com/hook")
    expect(request.body).toBe(
      `{"id":"evt_test","type":"webhook.test","created_at":"2026-01-01T00:00:00.250Z","workspace_id":"acme","sequence":0,` +
        `"data":{"webhook_id":"wh_1"}}`
    )
    const { "webhook-signature": signature, "x-service-signature": single, ...rest } = request.headers
    expect(rest).toEqual({
      "content-type": "application/json",
      "user-agent": "dealstream-webhooks/1",
      "x-service-event": "webhook.test",
      "x-service-event-id": "evt_test",
      "webhook-id": "evt_test",
      "webhook-timestamp": String(timestamp)
    })
    expect(single).toBe(signature)
    expect(verifyWebhookSignature({ secret, headers: request.headers, rawBody: request.body, now: timestamp })).toBe(true)
  })

  it("is signed as a delivery is: unsigned without a secret, with both secrets during an overlap", () => {
    expect(test({ ...webhook, secret: null }).headers).not.toHaveProperty("webhook-signature")
    const rotating = {
      ...webhook,
      secret: "sk_new_0123456789",
      previous_secret: { secret, expires_at: new Date((timestamp + 10) * 1000).toISOString() }
    }
    const request = test(rotating)
    const delivered = deliveryRequest({ delivery, workspaceId: "acme", webhook: rotating, sequence: 42, timestamp })
    expect(request.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
    expect(delivered.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
    for (const key of ["sk_new_0123456789", secret]) {
      expect(verifyWebhookSignature({ secret: key, format: "raw", headers: request.headers, rawBody: request.body, now: timestamp })).toBe(
        true
      )
    }
  })
})
