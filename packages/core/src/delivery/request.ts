import { signingSecretsAt, type WebhookSecrets } from "../webhook/secrets.js"
import { signWebhookPayload } from "../webhook/signature.js"
import { deliveryPayload, payloadDataInOrder } from "./payload.js"
import type { DeliveryDocument } from "./projection.js"

export interface DeliveryRequestInput {
  readonly delivery: DeliveryDocument
  readonly workspaceId: string
  /**
   * Where the webhook wants it now, and the secrets it is signed with (none: sent unsigned; during
   * a rotation's overlap, the new and the old).
   */
  readonly webhook: { readonly url: string } & WebhookSecrets
  /** The event's global position in the log, the payload's `sequence`. */
  readonly sequence: number
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
 * What one attempt of a delivery POSTs: the event's payload, its Standard Webhooks headers and,
 * for a webhook with a secret, the signature. Made afresh for every attempt, since the timestamp is
 * part of what is signed; the body is the same on every attempt and replay.
 */
export const deliveryRequest = ({ delivery, sequence, timestamp, webhook, workspaceId }: DeliveryRequestInput): DeliveryRequest => {
  const body = JSON.stringify(deliveryPayload({
    eventId: delivery.event_id,
    eventType: delivery.event_type,
    createdAt: delivery.event_created_at,
    workspaceId,
    sequence,
    data: payloadDataInOrder(delivery.payload_data)
  }))
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "dealstream-webhooks/1",
    "x-service-event": delivery.event_type,
    "x-service-delivery": delivery.id,
    // API.md promises a resend carries the same X-Service-Event-Id: the event id, as webhook-id.
    "x-service-event-id": delivery.event_id,
    "webhook-id": delivery.event_id,
    "webhook-timestamp": String(timestamp)
  }
  const signatures = signingSecretsAt(webhook, timestamp).map(({ secret, standard }) =>
    signWebhookPayload({ secret, format: standard ? "standard" : "raw", webhookId: delivery.event_id, timestamp, body })
  )
  if (signatures.length > 0) {
    // Standard Webhooks lets several signatures share the header, space-separated; the older
    // X-Service-Signature has room for one, the newest.
    headers["webhook-signature"] = signatures.join(" ")
    headers["x-service-signature"] = signatures[0]!
  }
  return { url: webhook.url, headers, body }
}

