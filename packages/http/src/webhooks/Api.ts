import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { accepted, actionErrors, createErrors, listErrors, readErrors, single } from "../answerSchemas.js"
import { pageOf, securedGroup } from "../documented.js"
import { deliveryParams, idempotencyHeader, idParams, PathText } from "../parameters.js"
import { recordEndpoints } from "../recordEndpoints.js"
import { Delivery, DELIVERY_STATUSES, RecoverInput, RecoveryJob, webhookSchemas, WebhookTestAttempt } from "./schemas.js"

const deliveryIds = { id: PathText, delivery_id: PathText }
const jobIds = { id: PathText, job_id: PathText }

const recoverDescription = `Schedules, as a background job, a delivery of every event recorded since \`since\` that the webhook
subscribes to and has no succeeded or pending delivery of, in \`sequence\` order: what it missed while it was failed, or a
new webhook's backfill. Purged events are skipped (their data is gone), and counted in \`skipped\`. The job runs on every
host's worker a chunk at a time; a crash or several hosts still schedule each event once. One job runs per webhook at a time
(409 while one does), and only for an active webhook (409 when it is failed: PATCH {"status": "active", "recover_since"}
reactivates and recovers in one step). 202 with Location: follow the job's progress there. Events recorded after the job
started are the webhook's ordinary deliveries.`

const payloadDescription = `Each event is POSTed as \`{"id": "evt_…", "type", "created_at", "workspace_id", "sequence", "data"}\`
with \`Content-Type: application/json\`, \`User-Agent: dealstream-webhooks/1\`, \`X-Service-Event\`, \`X-Service-Delivery\`,
\`webhook-id\` (the event id, the same on retries and replays) and \`webhook-timestamp\`. With a secret,
\`webhook-signature\` and \`X-Service-Signature\` carry \`v1,<base64 HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<raw body>")>\`
(Standard Webhooks). A 2xx within the timeout (default 15 s) succeeds; redirects are not followed; other answers and
errors are retried on the schedule (default 5s, 5m, 30m, 2h, 5h, 10h, 10h with ±20% jitter; Retry-After on 429/503
honoured within [delay, 2·delay]). 410 Gone, or an exhausted schedule, turns the webhook \`failed\`.`

const testDescription = `Sends a \`webhook.test\` event to the webhook's URL at once, whatever its status, and answers 200
with the attempt: \`status_code\` of any answer, 2xx or not, with \`error\` null; \`status_code\` null and \`error\` set when
none came (refused connection, timeout, …). The request is a delivery's (the same headers, signed with the same secrets, the
same timeout and target rules) with a fresh \`webhook-id\` and no \`X-Service-Delivery\`, as it is no delivery. Its payload is
\`{"id": "evt_…", "type": "webhook.test", "created_at", "workspace_id", "sequence": 0, "data": {"webhook_id"}}\`: sequence 0,
as it has no place in the event log. Nothing is recorded, no event and no delivery, so Idempotency-Key is not applied: a
repeated test sends again. No body.`

/** The webhooks' endpoints; `eventTypes` are what a webhook may subscribe to (core's recordTypeSet). */
export const webhooksGroup = (eventTypes: ReadonlyArray<string>) => {
  const { Webhook, WebhookEventType, WebhookInput, WebhookPatch } = webhookSchemas(eventTypes)
  const webhooks = recordEndpoints({
    name: "Webhook",
    collection: "/v1/webhooks",
    record: Webhook,
    input: WebhookInput,
    patch: WebhookPatch,
    list: { description: "Every webhook of the workspace, oldest first, in one page (next_cursor is null)." },
    get: {}
  })
  return securedGroup(
    "webhooks",
    webhooks.list,
    webhooks.get,
    webhooks.create.annotate(OpenApi.Description, payloadDescription),
    webhooks.update,
    webhooks.delete.annotate(
      OpenApi.Description,
      "Stops delivery at once: an attempt in flight is aborted (on every host), queued retries are cancelled, nothing is sent afterwards."
    ),
    HttpApiEndpoint.get("deliveries", "/v1/webhooks/:id/deliveries", {
      params: idParams,
      query: deliveryParams(DELIVERY_STATUSES),
      success: pageOf(Delivery, "DeliveryPage"),
      error: readErrors
    }).annotate(OpenApi.Description, "The webhook's deliveries, newest first, without their attempts."),
    HttpApiEndpoint.get("delivery", "/v1/webhooks/:id/deliveries/:delivery_id", {
      params: deliveryIds,
      success: single(Delivery),
      error: readErrors
    }).annotate(OpenApi.Description, "One delivery with every attempt."),
    HttpApiEndpoint.post("replay", "/v1/webhooks/:id/deliveries/:delivery_id/replay", {
      params: deliveryIds,
      headers: idempotencyHeader,
      success: accepted(Delivery),
      error: actionErrors
    }).annotate(
      OpenApi.Description,
      "Sends the delivery's event again as a new delivery (new id, replay_of = this one, same webhook-id and payload), " +
        "signed with the current secret and sent to the current URL, whatever the webhook's status. No body. " +
        "202 with Location: the new delivery is queued."
    ),
    HttpApiEndpoint.post("recover", "/v1/webhooks/:id/recover", {
      params: idParams,
      payload: RecoverInput,
      headers: idempotencyHeader,
      success: accepted(RecoveryJob),
      error: createErrors
    }).annotate(OpenApi.Description, recoverDescription),
    HttpApiEndpoint.get("recovery", "/v1/webhooks/:id/recoveries/:job_id", {
      params: jobIds,
      success: single(RecoveryJob),
      error: readErrors
    }).annotate(OpenApi.Description, "A recovery job of this webhook and its progress."),
    HttpApiEndpoint.post("test", "/v1/webhooks/:id/test", {
      params: idParams,
      success: WebhookTestAttempt,
      error: readErrors
    }).annotate(OpenApi.Description, testDescription),
    HttpApiEndpoint.get("eventTypes", "/v1/webhook-event-types", {
      success: pageOf(WebhookEventType, "WebhookEventTypePage"),
      error: listErrors
    }).annotate(
      OpenApi.Description,
      "Every event type a webhook can be sent, in one page (next_cursor is null): what it announces and the JSON Schema of " +
        "its payload's `data`. webhook.test is listed but cannot be subscribed to."
    )
  )
}
