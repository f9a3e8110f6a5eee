import { activityFields } from "./activityFields.js"
import { companyFields } from "./companyFields.js"
import { contactFields } from "./contactFields.js"
import type { CustomFieldObject } from "./custom.js"
import { dealFields } from "./dealFields.js"
import type { RecordFields } from "./table.js"

/** The field tables of the record types that carry custom fields: one line per record type. */
export const recordFields: { readonly [O in CustomFieldObject]: RecordFields } = {
  contact: contactFields,
  deal: dealFields,
  company: companyFields,
  activity: activityFields
}
