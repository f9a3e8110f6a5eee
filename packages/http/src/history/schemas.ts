import { Schema } from "effect"
import { exampleId, Timestamp } from "../documented.js"

const FieldValue = Schema.Unknown.annotate({ description: "The field's value as the record's GET shows it; null when unset." })

export const FieldChange = Schema.Struct({
  field: Schema.String.annotate({ description: "A standard or custom field of the record.", examples: ["title"] }),
  from: FieldValue,
  to: FieldValue
}).annotate({ identifier: "FieldChange" })

export const HistoryEntry = Schema.Struct({
  event_id: exampleId("evt"),
  type: Schema.String.annotate({ description: "The event's type, as webhooks name it.", examples: ["contact.updated"] }),
  at: Timestamp,
  actor: Schema.NullOr(Schema.Struct({ api_key_id: exampleId("key") })).annotate({
    description: "The API key whose request made the change; null for the engine's own work (a purge, a stage rule's system commands)."
  }),
  request_id: Schema.NullOr(Schema.String).annotate({ description: "The X-Request-Id of that request." }),
  changes: Schema.Array(FieldChange).annotate({
    description:
      "One row per field the event changed: a create lists every field it set (from null); a stage move stage_id; " +
      "a delete or restore none. Timestamps (created_at, updated_at) are left out: `at` says when."
  })
}).annotate({ identifier: "HistoryEntry" })

export const historyDescription = (record: string) =>
  `Every change to the ${record} since it was created, oldest first, one entry per event: who (the API key), when, the request, ` +
  `and each field's value before and after. Kept for a ${record} in the trash; a purged (or erased) ${record}'s history is gone (404), ` +
  "and its erased values never appear."
