import { Schema } from "effect"
import { customFields, exampleId, nullable, Timestamp } from "../documented.js"

const optional = (description: string) => Schema.optional(Schema.NullOr(Schema.String).annotations({ description }))

const writable = {
  first_name: optional("First name."),
  last_name: optional("Last name."),
  phone: optional("Phone number, free form."),
  title: optional("Job title."),
  company_id: optional("The company the contact works for (`comp_…`)."),
  source: optional("Where the contact came from, e.g. `webinar`."),
  owner_id: optional("The user who owns the contact.")
}

const email = Schema.String.annotations({
  description: "A valid address, unique among the workspace's live contacts (case-insensitive).",
  examples: ["ada@example.com"]
})

export const ContactInput = Schema.Struct({ email, ...writable }, customFields).annotations({
  identifier: "ContactInput",
  description: "A new contact. Custom field values are top-level keys; any other unknown key is 400."
})

export const ContactPatch = Schema.Struct({ email: Schema.optional(email), ...writable }, customFields).annotations({
  identifier: "ContactPatch",
  description: "Only the keys present change; null clears an optional field."
})

export const Activity = Schema.Struct({
  id: exampleId("act"),
  type: Schema.String.annotations({ examples: ["contact.updated", "deal.stage_changed"] }),
  occurred_at: Timestamp,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}).annotations({ identifier: "Activity" })

export const Contact = Schema.Struct({
  id: exampleId("con"),
  email,
  first_name: nullable(Schema.String, "First name."),
  last_name: nullable(Schema.String, "Last name."),
  phone: nullable(Schema.String, "Phone number."),
  title: nullable(Schema.String, "Job title."),
  company_id: nullable(Schema.String, "Company id."),
  source: nullable(Schema.String, "Source."),
  owner_id: nullable(Schema.String, "Owner id."),
  deal_ids: Schema.optional(Schema.Array(Schema.String).annotations({
    description: "Live deals whose contact_ids include this contact (replaced by `deals` with expand=deals)."
  })),
  deals: Schema.optional(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({
    description: "Full deal objects, with expand=deals."
  })),
  activities: Schema.optional(Schema.Array(Activity).annotations({
    description: "With expand=activities: the newest 100 events of the contact and its deals."
  })),
  company_ids: Schema.Array(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
}, customFields).annotations({ identifier: "Contact" })
