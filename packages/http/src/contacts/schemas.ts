import { contactFields } from "@dealstream/core"
import { Schema } from "effect"
import { Activity, expandedActivities } from "../activities/schemas.js"
import { Company } from "../companies/schemas.js"
import { AnyRecord, optionalList, withCustomFields } from "../documented.js"
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
