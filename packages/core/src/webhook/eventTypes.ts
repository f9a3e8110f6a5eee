import { builtInRecordTypes, type RecordTypeSet } from "../record/recordTypeSet.js"
import { type RecordEventType, recordEventTypes } from "../recordTypes.js"

/** The business events a webhook can subscribe to, in the API's order: the record types' (recordTypes.ts). */
export const WEBHOOK_EVENT_TYPES: ReadonlyArray<RecordEventType> = recordEventTypes

export type WebhookEventType = RecordEventType

/** Subscribes to every event type, including those added later. */
export const WEBHOOK_ALL_EVENTS = "*"

/**
 * What POST /v1/webhooks/:id/test sends. Not a business event: nothing in the log, so no webhook
 * subscribes to it (isWebhookEventType is false for it) and it is sent only when asked for.
 */
export const WEBHOOK_TEST_EVENT = "webhook.test"

/** Every type a webhook can be sent: the subscribable ones and the test's. */
export type WebhookSentEventType = WebhookEventType | typeof WEBHOOK_TEST_EVENT

/** Every type a webhook can be sent, in the API's order (GET /v1/webhook-event-types). */
export const WEBHOOK_SENT_EVENT_TYPES: ReadonlyArray<WebhookSentEventType> = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT]

/** What each type announces, one sentence each; its payload's `data` is described beside it. */
export const WEBHOOK_EVENT_DESCRIPTIONS: { readonly [Type in WebhookSentEventType]: string } = {
  "contact.created": "A contact was created; data.contact is the contact as the API shows it.",
  "contact.updated":
    "A contact's fields changed; data.contact is the contact after the change and data.changed_fields names the fields that changed.",
  "contact.deleted": "A contact was moved to the trash; data.id is its id.",
  "contact.restored": "A contact was restored from the trash; data.contact is the contact as the API shows it.",
  "deal.created": "A deal was created; data.deal is the deal as the API shows it.",
  "deal.updated": "A deal's fields changed; data.deal is the deal after the change and data.changed_fields names the fields that changed.",
  "deal.stage_changed":
    "A deal moved to another stage; data.deal is the deal after the move and data.timeline_entry the entry it added to the deal's timeline.",
  "deal.deleted": "A deal was moved to the trash; data.id is its id.",
  "deal.restored": "A deal was restored from the trash; data.deal is the deal as the API shows it.",
  "company.created": "A company was created; data.company is the company as the API shows it.",
  "company.updated":
    "A company's fields changed; data.company is the company after the change and data.changed_fields names the fields that changed.",
  "company.deleted": "A company was moved to the trash; data.id is its id.",
  "company.restored": "A company was restored from the trash; data.company is the company as the API shows it.",
  "activity.created": "An activity was created; data.activity is the activity as the API shows it.",
  "activity.updated":
    "An activity's fields changed (marking it done included); data.activity is the activity after the change and data.changed_fields names the fields that changed.",
  "activity.deleted": "An activity was moved to the trash; data.id is its id.",
  "activity.restored": "An activity was restored from the trash; data.activity is the activity as the API shows it.",
  "contact.erased":
    "A contact was erased at once on request (POST /v1/contacts/:id/erase), live or in the trash: its data left every view, the " +
    "log, the change feed and the payloads of its earlier deliveries; data.id is its id, and nothing else of it remains.",
  "contact.merged":
    "Contacts were merged into this one (POST /v1/contacts/:id/merge), in one commit; data.contact is the survivor after the merge " +
    "and data.merged_ids the contacts merged into it, now in the trash. Deals and activities that named them name it instead.",
  "contact.unmerged":
    "A contact merged into this one was brought back (POST /v1/contacts/:id/unmerge); data.contact is the survivor after it and " +
    "data.restored_id the contact back as it was, with the links the merge moved from it.",
  "company.merged":
    "Companies were merged into this one (POST /v1/companies/:id/merge), in one commit; data.company is the survivor after the " +
    "merge and data.merged_ids the companies merged into it, now in the trash. Contacts, deals and activities that named them name it instead.",
  "company.unmerged":
    "A company merged into this one was brought back (POST /v1/companies/:id/unmerge); data.company is the survivor after it and " +
    "data.restored_id the company back as it was, with the links the merge moved from it.",
  "webhook.test": "Sent only by POST /v1/webhooks/:id/test, never on its own; data.webhook_id is the webhook tested."
}

/** A plug-in's events (record/recordTypeSet.ts) are known by the set given, the built-ins' by their type. */
export const isWebhookEventType = (u: unknown, known: RecordTypeSet = builtInRecordTypes): u is string =>
  typeof u === "string" && known.eventTypes.includes(u)
