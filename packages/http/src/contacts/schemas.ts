import { contactFields } from "@dealstream/core"
import { Schema } from "effect"
import { Activity, expandedActivities } from "../activities/schemas.js"
import { Company } from "../companies/schemas.js"
import { AnyRecord, exampleId, optionalList, Timestamp, withCustomFields } from "../documented.js"
import { HistoryEntry } from "../history/schemas.js"
import { answerFields, createFields, PATCH_DESCRIPTION, patchFields } from "../fieldSchemas.js"

export const ContactInput = withCustomFields(createFields(contactFields.standard), {
  identifier: "ContactInput",
  description:
    "A new contact. Custom field values are top-level keys; any other unknown key is 400. company_id and " +
    "company_ids may be given alone or together (company_id then one of company_ids); every company must be live."
})

export const ContactPatch = withCustomFields(patchFields(contactFields.standard), {
  identifier: "ContactPatch",
  description: PATCH_DESCRIPTION
})

/**
 * The contact's computed keys (core's contactFields.computed), as the engine answers them, and
 * company_ids, a stored field that expand=companies replaces (so optional in an answer; it keeps
 * its place after company_id).
 */
const computed = {
  company_ids: optionalList(
    Schema.String,
    "Every company of the contact, live ones only, the primary first (replaced by `companies` with expand=companies)."
  ),
  deal_ids: optionalList(Schema.String, "Live deals whose contact_ids include this contact (replaced by `deals` with expand=deals)."),
  deals: optionalList(AnyRecord, "Full deal objects, with expand=deals."),
  companies: optionalList(Company, "Full company objects in place of company_ids (live ones, the primary first), with expand=companies."),
  activities: expandedActivities(Activity)
}

export const Contact = withCustomFields(answerFields(contactFields.standard, computed), { identifier: "Contact" })

const ids = (prefix: string, description: string) => Schema.Array(exampleId(prefix)).annotate({ description })

/** GET /v1/contacts/:id/export: everything held about the person (core's ContactPrivacy.exportPerson). */
export const ContactExport = Schema.Struct({
  contact: Contact.annotate({ description: "The contact as its GET shows it (or the trash, for a contact in the trash)." }),
  deleted_at: Schema.NullOr(Timestamp).annotate({ description: "When the contact was moved to the trash; null while it is live." }),
  history: Schema.Array(HistoryEntry).annotate({
    description: "Every change to the contact since it was created, oldest first, with every value before and after (its whole history)."
  }),
  activities: Schema.Array(Activity).annotate({
    description:
      "Every activity whose contact_ids name the contact, live or in the trash, oldest first, each with its links as stored " +
      "(records in the trash included)."
  }),
  deal_ids: ids("deal", "The deals whose contact_ids name the contact, live or in the trash, in id order."),
  company_ids: ids("com", "The companies the contact names (company_ids as stored, the primary first), live or in the trash."),
  delivery_ids: ids(
    "dlv",
    "The webhook deliveries whose payloads carried the contact (of any of its events, replays included), in id order."
  ),
  exported_at: Timestamp
}).annotate({
  identifier: "ContactExport",
  description: "Everything held about a person: read from one consistent state of the storage."
})

const count = (description: string) => Schema.Int.annotate({ description })

/** POST /v1/contacts/:id/erase: what the erasure redacted and unlinked (core's ContactPrivacy.erase). */
export const ContactErasure = Schema.Struct({
  id: exampleId("con"),
  erased_at: Timestamp.annotate({ description: "The time of the `contact.erased` tombstone." }),
  redacted: Schema.Struct({
    events: count('The contact\'s events whose data became `{"redacted": true}`; the tombstone follows them.'),
    feed_entries: count("The change feed's entries among them (every event of a contact is one), read from now on as redacted."),
    deliveries: count('Webhook deliveries whose payloads carried the contact, now `{"redacted": true}` (pending ones cancelled).'),
    stored_answers: count(
      "Answers stored under an Idempotency-Key that showed the contact: one that was the contact itself is forgotten (a retry " +
        "with its key is answered from the record: 404), one that showed it among others (a batch's) shows `{id, redacted: true}` in its place."
    )
  }),
  unlinked: Schema.Struct({
    deals: count("Deals, live or in the trash, whose contact_ids lost the contact (their history keeps its id only)."),
    companies: count("Companies the contact named: the link lived on the contact, and went with it."),
    activities: count("Activities, live or in the trash, whose contact_ids lost the contact (their history keeps its id only).")
  }),
  erased_activities: count(
    "Activities that named the person alone (no other contact, deal or company): purged with them, an activity.purged tombstone each."
  )
}).annotate({ identifier: "ContactErasure" })
