import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { verifyWebhookSignature } from "../webhook/signature.js"
import type { DeliveryScheduled } from "./events.js"
import { DeliveryDocument, projectDelivery } from "./projection.js"
import { deliveryRequest } from "./request.js"

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
      deliveryRequest({ delivery, workspaceId: "acme", webhook: { url: "https://example.com/hook", secret }, sequence: 42, timestamp: seconds })
    const first = attempt(timestamp)
    const second = attempt(timestamp + 300)
    expect(second.body).toBe(first.body)
    expect(second.headers["webhook-signature"]).not.toBe(first.headers["webhook-signature"])
  })
})
