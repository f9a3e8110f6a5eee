import {
  type JsonObject,
  type lifeEvents,
  type RecordType,
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_SENT_EVENT_TYPES,
  type WebhookSentEventType
} from "@dealstream/core"
import { Schema } from "effect"
import { Activity } from "../activities/schemas.js"
import { Company } from "../companies/schemas.js"
import { Contact } from "../contacts/schemas.js"
import { Deal, TimelineEntry } from "../deals/schemas.js"
import { customFieldsBesideProperties } from "../openApi/customFields.js"

/**
 * GET /v1/webhook-event-types: every type a webhook can be sent, what it announces (core keeps the
 * sentences beside the type list) and the JSON Schema of its payload's `data`, generated from the
 * schemas the API's records are documented with, so an event carries a record as its GET shows it.
 */

const changedFields = Schema.Array(Schema.String).annotate({
  description: "The fields the change set, standard and custom."
})

const removed = Schema.Struct({ id: Schema.String.annotate({ description: "The id of the record moved to the trash." }) })

/** Each record type's record as the API documents it: a payload shows it under the type's name. */
const RECORD_SCHEMAS: { readonly [T in RecordType]: Schema.Top } = { contact: Contact, deal: Deal, company: Company, activity: Activity }

/** The payload's `data` of the types that are not a record type's life (created, updated, deleted, restored). */
const OWN_PAYLOAD_DATA: { readonly [Type in Exclude<WebhookSentEventType, `${RecordType}.${(typeof lifeEvents)[number]}`>]: Schema.Top } = {
  "deal.stage_changed": Schema.Struct({ deal: Deal, timeline_entry: TimelineEntry }),
  "webhook.test": Schema.Struct({ webhook_id: Schema.String.annotate({ description: "The webhook tested." }) })
}

/** The payload's `data` of each type, as core's payloadDataFor (and testPayload) makes it. */
const payloadData = (type: WebhookSentEventType): Schema.Top => {
  if (Object.hasOwn(OWN_PAYLOAD_DATA, type)) return OWN_PAYLOAD_DATA[type as keyof typeof OWN_PAYLOAD_DATA]
  const [record, event] = type.split(".") as [RecordType, string]
  return event === "deleted"
    ? removed
    : event === "updated"
      ? Schema.Struct({ [record]: RECORD_SCHEMAS[record], changed_fields: changedFields })
      : Schema.Struct({ [record]: RECORD_SCHEMAS[record] })
}

/**
 * Self-contained (every definition inline) and closed like the rest of the document: a `data`
 * member or record field the schema does not name is refused, custom fields aside.
 */
const jsonSchemaOf = (schema: Schema.Top): JsonObject => {
  const document = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error", referencePolicy: () => undefined })
  // JSON Schema is JSON: the cast only forgets the narrower type.
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...(customFieldsBesideProperties(document.schema) as JsonObject) }
}

/** The list, made once: it changes only with the code. */
export const webhookEventTypes: ReadonlyArray<JsonObject> = WEBHOOK_SENT_EVENT_TYPES.map((type) => ({
  type,
  description: WEBHOOK_EVENT_DESCRIPTIONS[type],
  schema: jsonSchemaOf(payloadData(type))
}))
