import { companyFields } from "@dealstream/core"
import { Schema } from "effect"
import { expandedActivities } from "../activities/schemas.js"
import { AnyRecord, optionalList, withCustomFields } from "../documented.js"
import { answerFields, createFields, PATCH_DESCRIPTION, patchFields } from "../fieldSchemas.js"

export const CompanyInput = withCustomFields(createFields(companyFields.standard), {
  identifier: "CompanyInput",
  description: "A new company. Custom field values (object `company`) are top-level keys; any other unknown key is 400."
})

export const CompanyPatch = withCustomFields(patchFields(companyFields.standard), {
  identifier: "CompanyPatch",
  description: PATCH_DESCRIPTION
})

/** The company's computed keys (core's companyFields.computed), as the engine answers them. */
const computed = {
  contact_ids: optionalList(
    Schema.String,
    "Live contacts whose company_ids include this company (replaced by `contacts` with expand=contacts)."
  ),
  deal_ids: optionalList(Schema.String, "Live deals whose company_id is this company (replaced by `deals` with expand=deals)."),
  contacts: optionalList(AnyRecord, "Full contact objects, with expand=contacts."),
  deals: optionalList(AnyRecord, "Full deal objects, with expand=deals."),
  activities: expandedActivities(AnyRecord)
}

export const Company = withCustomFields(answerFields(companyFields.standard, computed), { identifier: "Company" })
