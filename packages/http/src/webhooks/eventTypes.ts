import {
  type JsonObject,
  type lifeEvents,
  type RecordType,
  type RecordTypeSet,
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_TEST_EVENT,
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
  "contact.merged": Schema.Struct({ contact: Contact, merged_ids: Schema.Array(Schema.String) }),
  "contact.unmerged": Schema.Struct({ contact: Contact, restored_id: Schema.String }),
  "company.merged": Schema.Struct({ company: Company, merged_ids: Schema.Array(Schema.String) }),
  "company.unmerged": Schema.Struct({ company: Company, restored_id: Schema.String }),
  "contact.erased": Schema.Struct({
    id: Schema.String.annotate({ description: "The id of the contact erased: nothing else of it remains." })
  }),
  "webhook.test": Schema.Struct({ webhook_id: Schema.String.annotate({ description: "The webhook tested." }) })
}

/** The payload's `data` of an event of a record's life: the record under its type's name, or the id of one deleted. */
const lifePayloadData = (record: string, event: string, schema: Schema.Top): Schema.Top =>
  event === "deleted"
    ? removed
    : event === "updated"
      ? Schema.Struct({ [record]: schema, changed_fields: changedFields })
      : Schema.Struct({ [record]: schema })

/** The payload's `data` of each type, as core's payloadDataFor (and testPayload) makes it. */
const payloadData = (type: WebhookSentEventType): Schema.Top => {
  if (Object.hasOwn(OWN_PAYLOAD_DATA, type)) return OWN_PAYLOAD_DATA[type as keyof typeof OWN_PAYLOAD_DATA]
  const [record, event] = type.split(".") as [RecordType, string]
  return lifePayloadData(record, event, RECORD_SCHEMAS[record])
}

/** What a plug-in's event announces, by its life's event: the built-ins' sentences, said of any record type. */
const PLUGIN_EVENT_DESCRIPTIONS: { readonly [Event in (typeof lifeEvents)[number]]: (name: string) => string } = {
  created: (name) => `Created: data.${name} is the new ${name} as the API shows it.`,
  updated: (name) => `Changed: data.${name} is the ${name} after the change and data.changed_fields names the fields that changed.`,
  deleted: (name) => `Moved to the trash: data.id is the ${name}'s id.`,
  restored: (name) => `Restored from the trash: data.${name} is the ${name} as the API shows it.`
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

/**
 * The list of an API serving `served` (a built-in's type from core's sentences, a plug-in's from
 * its record's schema in `records`, by name), the subscribable types first and webhook.test last,
 * as its WebhookEventType enum lists them. Made once per API: it changes only with the code and the
 * plug-ins.
 */
export const webhookEventTypes = (served: RecordTypeSet, records: ReadonlyMap<string, Schema.Top>): ReadonlyArray<JsonObject> =>
  [...served.eventTypes, WEBHOOK_TEST_EVENT].map((type) => {
    if (Object.hasOwn(WEBHOOK_EVENT_DESCRIPTIONS, type)) {
      const sent = type as WebhookSentEventType
      return { type, description: WEBHOOK_EVENT_DESCRIPTIONS[sent], schema: jsonSchemaOf(payloadData(sent)) }
    }
    const [name, event] = type.split(".") as [string, (typeof lifeEvents)[number]]
    return {
      type,
      description: PLUGIN_EVENT_DESCRIPTIONS[event](name),
      schema: jsonSchemaOf(lifePayloadData(name, event, records.get(name)!))
    }
  })
