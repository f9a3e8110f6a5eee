import { contactFields } from "@dealstream/core"
import { Schema } from "effect"
import { customFields, exampleId, Timestamp } from "../documented.js"
import { answerFields, createFields, patchFields } from "../fieldSchemas.js"

export const ContactInput = Schema.StructWithRest(Schema.Struct(createFields(contactFields)), customFields).annotate({
  identifier: "ContactInput",
  description: "A new contact. Custom field values are top-level keys; any other unknown key is 400."
})

export const ContactPatch = Schema.StructWithRest(Schema.Struct(patchFields(contactFields)), customFields).annotate({
  identifier: "ContactPatch",
  description: "Only the keys present change; null clears an optional field."
})

/** An entry drawn from the event log (what expand=activities returned before activities were records). */
export const LogEntry = Schema.Struct({
  id: exampleId("act"),
  type: Schema.String.annotate({ examples: ["contact.updated", "deal.stage_changed"] }),
  occurred_at: Timestamp,
  data: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ identifier: "LogEntry" })

/** The contact's computed keys (core's contactFields.computed), as the engine answers them. */
const computed = {
  deal_ids: Schema.optionalKey(Schema.Array(Schema.String).annotate({
    description: "Live deals whose contact_ids include this contact (replaced by `deals` with expand=deals)."
  })),
  deals: Schema.optionalKey(Schema.Array(Schema.Record(Schema.String, Schema.Unknown)).annotate({
    description: "Full deal objects, with expand=deals."
  })),
  activities: Schema.optionalKey(Schema.Array(LogEntry).annotate({
    description: "With expand=activities: the newest 100 events of the contact and its deals."
  })),
  company_ids: Schema.Array(Schema.String)
}

export const Contact = Schema.StructWithRest(Schema.Struct(answerFields(contactFields, computed)), customFields)
  .annotate({ identifier: "Contact" })
