import { type Aggregate, recordDocument } from "../aggregate.js"
import type { WebhookCommand } from "./commands.js"
import { webhookDecider, type WebhookState } from "./decider.js"
import { WebhookEvent } from "./events.js"
import { projectWebhook } from "./projection.js"

export const webhookAggregate: Aggregate<WebhookCommand, WebhookEvent, WebhookState> = {
  name: "webhook",
  prefix: "wh",
  decider: webhookDecider,
  events: WebhookEvent,
  project: projectWebhook,
  documents: recordDocument("webhook", projectWebhook),
  collections: ["webhook"],
  settings: true,
  rebuilt: false
}
