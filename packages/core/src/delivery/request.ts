import { builtInRecordTypes, type RecordTypeSet } from "../record/recordTypeSet.js"
import { signingSecretsAt, type WebhookSecrets } from "../webhook/secrets.js"
import { signWebhookPayload } from "../webhook/signature.js"
import { deliveryPayload, type DeliveryPayloadInput, payloadDataInOrder, testPayload } from "./payload.js"
import type { DeliveryDocument } from "./projection.js"

/**
 * Where the webhook wants it now, and the secrets it is signed with (none: sent unsigned; during a
 * rotation's overlap, the new and the old).
 */
export type RequestTarget = { readonly url: string } & WebhookSecrets

export interface WebhookRequestInput {
  /** What is POSTed (see deliveryPayload). */
  readonly payload: DeliveryPayloadInput
  /** `X-Service-Delivery`: the delivery this is an attempt of; null for a request that is none (a test). */
  readonly deliveryId: string | null
  readonly webhook: RequestTarget
  /** When the attempt starts, in whole Unix seconds: `webhook-timestamp`, part of what is signed. */
  readonly timestamp: number
}

export interface DeliveryRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The exact bytes that were signed. */
  readonly body: string
}

/**
 * What one request to a webhook POSTs: the payload, its Standard Webhooks headers and, for a
 * webhook with a secret, the signature. Deliveries and tests are both made here, so a receiver
 * that accepts a test accepts the real thing. Made afresh for every attempt, since the timestamp
 * is part of what is signed.
 */
export const webhookRequest = ({ deliveryId, payload, timestamp, webhook }: WebhookRequestInput): DeliveryRequest => {
  const body = JSON.stringify(deliveryPayload(payload))
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "dealstream-webhooks/1",
    "x-service-event": payload.eventType,
    ...(deliveryId === null ? {} : { "x-service-delivery": deliveryId }),
    // API.md promises a resend carries the same X-Service-Event-Id: the event id, as webhook-id.
    "x-service-event-id": payload.eventId,
    "webhook-id": payload.eventId,
    "webhook-timestamp": String(timestamp)
  }
  const signatures = signingSecretsAt(webhook, timestamp).map(({ secret, standard }) =>
    signWebhookPayload({ secret, format: standard ? "standard" : "raw", webhookId: payload.eventId, timestamp, body })
  )
  if (signatures.length > 0) {
    // Standard Webhooks lets several signatures share the header, space-separated; the older
    // X-Service-Signature has room for one, the newest.
    headers["webhook-signature"] = signatures.join(" ")
    headers["x-service-signature"] = signatures[0]!
  }
  return { url: webhook.url, headers, body }
}

export interface DeliveryRequestInput {
  readonly delivery: DeliveryDocument
  readonly workspaceId: string
  readonly webhook: RequestTarget
  /** The event's global position in the log, the payload's `sequence`. */
  readonly sequence: number
  /** When the attempt starts, in whole Unix seconds. */
  readonly timestamp: number
}

/** One attempt of a delivery: its event's payload, the same bytes on every attempt and replay. */
export const deliveryRequest = (
  { delivery, sequence, timestamp, webhook, workspaceId }: DeliveryRequestInput,
  known: RecordTypeSet = builtInRecordTypes
): DeliveryRequest =>
  webhookRequest({
    payload: {
      eventId: delivery.event_id,
      eventType: delivery.event_type,
      createdAt: delivery.event_created_at,
      workspaceId,
      sequence,
      data: payloadDataInOrder(delivery.payload_data, known)
    },
    deliveryId: delivery.id,
    webhook,
    timestamp
  })

export interface TestRequestInput {
  readonly webhook: RequestTarget & { readonly id: string }
  readonly workspaceId: string
  /** A fresh `evt_…` id: `webhook-id` and the payload's `id`, as a new event's would be. */
  readonly eventId: string
  /** When the test starts, in milliseconds since the epoch: `created_at` and `webhook-timestamp`. */
  readonly at: number
}

/**
 * The `webhook.test` request of POST /v1/webhooks/:id/test: built and signed as a delivery's, with
 * no X-Service-Delivery, as it is no delivery (nothing is recorded of it).
 */
export const testRequest = ({ at, eventId, webhook, workspaceId }: TestRequestInput): DeliveryRequest =>
  webhookRequest({
    payload: testPayload({ eventId, createdAt: new Date(at).toISOString(), workspaceId, webhookId: webhook.id }),
    deliveryId: null,
    webhook,
    timestamp: Math.floor(at / 1000)
  })
