import { Schema } from "effect"
import { customFields, exampleId, nullable, Timestamp } from "../documented.js"

const optional = (description: string) => Schema.optionalKey(Schema.NullOr(Schema.String).annotate({ description }))

const writable = {
  first_name: optional("First name."),
  last_name: optional("Last name."),
  phone: optional("Phone number, free form."),
  title: optional("Job title."),
  company_id: optional("The company the contact works for (`comp_…`)."),
  source: optional("Where the contact came from, e.g. `webinar`."),
  owner_id: optional("The user who owns the contact.")
}

const email = Schema.String.annotate({
  description: "A valid address, unique among the workspace's live contacts (case-insensitive).",
  examples: ["ada@example.com"]
})

export const ContactInput = Schema.StructWithRest(Schema.Struct({ email, ...writable }), customFields).annotate({
  identifier: "ContactInput",
  description: "A new contact. Custom field values are top-level keys; any other unknown key is 400."
})

export const ContactPatch = Schema.StructWithRest(Schema.Struct({ email: Schema.optionalKey(email), ...writable }), customFields).annotate({
  identifier: "ContactPatch",
  description: "Only the keys present change; null clears an optional field."
})

export const Activity = Schema.Struct({
  id: exampleId("act"),
  type: Schema.String.annotate({ examples: ["contact.updated", "deal.stage_changed"] }),
  occurred_at: Timestamp,
  data: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ identifier: "Activity" })

export const Contact = Schema.StructWithRest(
  Schema.Struct({
    id: exampleId("con"),
    email,
    first_name: nullable(Schema.String, "First name."),
    last_name: nullable(Schema.String, "Last name."),
    phone: nullable(Schema.String, "Phone number."),
    title: nullable(Schema.String, "Job title."),
    company_id: nullable(Schema.String, "Company id."),
    source: nullable(Schema.String, "Source."),
    owner_id: nullable(Schema.String, "Owner id."),
    deal_ids: Schema.optionalKey(Schema.Array(Schema.String).annotate({
      description: "Live deals whose contact_ids include this contact (replaced by `deals` with expand=deals)."
    })),
    deals: Schema.optionalKey(Schema.Array(Schema.Record(Schema.String, Schema.Unknown)).annotate({
      description: "Full deal objects, with expand=deals."
    })),
    activities: Schema.optionalKey(Schema.Array(Activity).annotate({
      description: "With expand=activities: the newest 100 events of the contact and its deals."
    })),
    company_ids: Schema.Array(Schema.String),
    created_at: Timestamp,
    updated_at: Timestamp
  }),
  customFields
).annotate({ identifier: "Contact" })
