import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { idempotencyHeader, idParam, ifMatchHeader, optionalText, pageOf, pagingParams, PathText, securedGroup } from "../documented.js"
import { Delivery, Webhook, WebhookInput, WebhookPatch } from "./schemas.js"

const deliveryIdParam = HttpApiSchema.param("delivery_id", PathText)

const payloadDescription = `Each event is POSTed as \`{"id": "evt_…", "type", "created_at", "workspace_id", "sequence", "data"}\`
with \`Content-Type: application/json\`, \`User-Agent: dealstream-webhooks/1\`, \`X-Service-Event\`, \`X-Service-Delivery\`,
\`webhook-id\` (the event id, the same on retries and replays) and \`webhook-timestamp\`. With a secret,
\`webhook-signature\` and \`X-Service-Signature\` carry \`v1,<base64 HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<raw body>")>\`
(Standard Webhooks). A 2xx within the timeout (default 15 s) succeeds; redirects are not followed; other answers and
errors are retried on the schedule (default 5s, 5m, 30m, 2h, 5h, 10h, 10h with ±20% jitter; Retry-After on 429/503
honoured within [delay, 2·delay]). 410 Gone, or an exhausted schedule, turns the webhook \`failed\`.`

export class WebhooksApi extends securedGroup("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/v1/webhooks")
      .addSuccess(pageOf(Webhook, "WebhookPage"))
      .annotate(OpenApi.Description, "Every webhook of the workspace, oldest first, in one page (next_cursor is null).")
  )
  .add(HttpApiEndpoint.get("get")`/v1/webhooks/${idParam}`.addSuccess(Webhook))
  .add(
    HttpApiEndpoint.post("create", "/v1/webhooks")
      .setPayload(WebhookInput)
      .setHeaders(idempotencyHeader)
      .addSuccess(Webhook, { status: 201 })
      .annotate(OpenApi.Description, payloadDescription)
  )
  .add(
    HttpApiEndpoint.patch("update")`/v1/webhooks/${idParam}`
      .setPayload(WebhookPatch)
      .setHeaders(ifMatchHeader)
      .addSuccess(Webhook)
  )
  .add(
    HttpApiEndpoint.del("delete")`/v1/webhooks/${idParam}`
      .setHeaders(ifMatchHeader)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(
        OpenApi.Description,
        "Stops delivery at once: an attempt in flight is aborted (on every host), queued retries are cancelled, nothing is sent afterwards."
      )
  )
  .add(
    HttpApiEndpoint.get("deliveries")`/v1/webhooks/${idParam}/deliveries`
      .setUrlParams(Schema.Struct({ status: optionalText("pending, succeeded, failed or cancelled."), ...pagingParams }))
      .addSuccess(pageOf(Delivery, "DeliveryPage"))
      .annotate(OpenApi.Description, "The webhook's deliveries, newest first, without their attempts.")
  )
  .add(
    HttpApiEndpoint.get("delivery")`/v1/webhooks/${idParam}/deliveries/${deliveryIdParam}`
      .addSuccess(Delivery)
      .annotate(OpenApi.Description, "One delivery with every attempt.")
  )
  .add(
    HttpApiEndpoint.post("replay")`/v1/webhooks/${idParam}/deliveries/${deliveryIdParam}/replay`
      .setHeaders(idempotencyHeader)
      .addSuccess(Delivery, { status: 202 })
      .annotate(
        OpenApi.Description,
        "Sends the delivery's event again as a new delivery (new id, replay_of = this one, same webhook-id and payload), " +
          "signed with the current secret and sent to the current URL, whatever the webhook's status. No body. " +
          "202 with Location: the new delivery is queued."
      )
  )
{}
