import { type JsonObject, WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_SENT_EVENT_TYPES, type WebhookSentEventType } from "@dealstream/core"
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

/** The payload's `data` of each type, as core's payloadDataFor (and testPayload) makes it. */
const PAYLOAD_DATA: { readonly [Type in WebhookSentEventType]: Schema.Top } = {
  "contact.created": Schema.Struct({ contact: Contact }),
  "contact.updated": Schema.Struct({ contact: Contact, changed_fields: changedFields }),
  "contact.deleted": removed,
  "contact.restored": Schema.Struct({ contact: Contact }),
  "deal.created": Schema.Struct({ deal: Deal }),
  "deal.updated": Schema.Struct({ deal: Deal, changed_fields: changedFields }),
  "deal.stage_changed": Schema.Struct({ deal: Deal, timeline_entry: TimelineEntry }),
  "deal.deleted": removed,
  "deal.restored": Schema.Struct({ deal: Deal }),
  "company.created": Schema.Struct({ company: Company }),
  "company.updated": Schema.Struct({ company: Company, changed_fields: changedFields }),
  "company.deleted": removed,
  "company.restored": Schema.Struct({ company: Company }),
  "activity.created": Schema.Struct({ activity: Activity }),
  "activity.updated": Schema.Struct({ activity: Activity, changed_fields: changedFields }),
  "activity.deleted": removed,
  "activity.restored": Schema.Struct({ activity: Activity }),
  "webhook.test": Schema.Struct({ webhook_id: Schema.String.annotate({ description: "The webhook tested." }) })
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
  schema: jsonSchemaOf(PAYLOAD_DATA[type])
}))
