import * as fc from "fast-check"
import type { Projected } from "../../decider.js"
import { webhookAggregate } from "../../webhook/aggregate.js"
import type { CreateWebhook, DeleteWebhook, MarkWebhookFailed, UpdateWebhook, WebhookCommand } from "../../webhook/commands.js"
import { WEBHOOK_ALL_EVENTS, WEBHOOK_EVENT_TYPES } from "../../webhook/eventTypes.js"
import type { WebhookCreated, WebhookEvent, WebhookUpdated } from "../../webhook/events.js"
import type { WebhookPatch } from "../../webhook/input.js"
import { traceCommands } from "../trace.js"
import { idOf, instant, streamScript } from "./common.js"

const url = fc.constantFrom("https://example.com/hooks/crm", "https://hooks.example.org/in", "https://93.184.215.14/h")
/** `["*"]` alone, or distinct event types: what `parseWebhookCreate` accepts. */
const eventTypes = fc.oneof(
  fc.constant([WEBHOOK_ALL_EVENTS]),
  fc.uniqueArray(fc.constantFrom(...WEBHOOK_EVENT_TYPES), { minLength: 1, maxLength: 4 })
)
const secret = fc.option(fc.constantFrom("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "another-secret-42"), { nil: null })
const webhookId = idOf("wh")

export const createWebhook: fc.Arbitrary<CreateWebhook> = fc
  .record({ id: webhookId, at: instant, url, events: eventTypes, secret })
  .map((c) => ({ type: "CreateWebhook", ...c }))

export const webhookPatch: fc.Arbitrary<WebhookPatch> = fc.record(
  { url, events: eventTypes, secret, status: fc.constant("active" as const) },
  { requiredKeys: [] }
)
export const updateWebhook: fc.Arbitrary<UpdateWebhook> = fc
  .record({ id: webhookId, at: instant, fields: webhookPatch })
  .map((c) => ({ type: "UpdateWebhook", ...c }))
export const markWebhookFailed: fc.Arbitrary<MarkWebhookFailed> = fc
  .record({
    id: webhookId,
    at: instant,
    reason: fc.constantFrom("gone" as const, "exhausted" as const)
  })
  .map((c) => ({ type: "MarkWebhookFailed", ...c }))
export const deleteWebhook: fc.Arbitrary<DeleteWebhook> = fc
  .record({ id: webhookId, at: instant })
  .map((c) => ({ type: "DeleteWebhook", ...c }))

/** One webhook's life: patches, failures (from the worker) and reactivations, perhaps its deletion. */
export const webhookScript: fc.Arbitrary<ReadonlyArray<WebhookCommand>> = webhookId.chain((id) =>
  streamScript<WebhookCommand>(
    createWebhook.map((c) => ({ ...c, id })),
    fc
      .oneof({ arbitrary: updateWebhook, weight: 4 }, { arbitrary: markWebhookFailed, weight: 2 }, { arbitrary: deleteWebhook, weight: 1 })
      .map((c) => ({ ...c, id })),
    12
  )
)

export const webhookHistory: fc.Arbitrary<ReadonlyArray<WebhookEvent>> = webhookScript.map(
  (s) => traceCommands(webhookAggregate, s).history
)

export const webhookCreated: fc.Arbitrary<WebhookCreated> = createWebhook.map(({ type: _, ...data }) => ({ type: "webhook.created", data }))
export const webhookUpdated: fc.Arbitrary<WebhookUpdated> = fc
  .tuple(
    fc.record({ url, events: eventTypes, secret }, { requiredKeys: [] }).filter((c) => Object.keys(c).length > 0),
    instant
  )
  .map(([changed, at]) => ({ type: "webhook.updated", data: { changed, at } }))
const atOnly = <T extends "webhook.reactivated" | "webhook.deleted">(type: T) => instant.map((at) => ({ type, data: { at } }))
const webhookFailed = markWebhookFailed.map(({ at, reason }) => ({ type: "webhook.failed" as const, data: { reason, at } }))

export const webhookDocument: fc.Arbitrary<Projected> = webhookScript
  .map((s) => traceCommands(webhookAggregate, s).document)
  .filter((d): d is Projected => d !== null)

export const webhookArbitraries = {
  commands: {
    CreateWebhook: createWebhook,
    UpdateWebhook: updateWebhook,
    MarkWebhookFailed: markWebhookFailed,
    DeleteWebhook: deleteWebhook
  },
  command: fc.oneof(createWebhook, updateWebhook, markWebhookFailed, deleteWebhook) as fc.Arbitrary<WebhookCommand>,
  script: webhookScript,
  history: webhookHistory,
  events: {
    "webhook.created": webhookCreated,
    "webhook.updated": webhookUpdated,
    "webhook.reactivated": atOnly("webhook.reactivated"),
    "webhook.failed": webhookFailed,
    "webhook.deleted": atOnly("webhook.deleted")
  },
  event: fc.oneof(
    webhookCreated,
    webhookUpdated,
    atOnly("webhook.reactivated"),
    webhookFailed,
    atOnly("webhook.deleted")
  ) as fc.Arbitrary<WebhookEvent>,
  document: webhookDocument
}
