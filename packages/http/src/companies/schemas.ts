import { companyFields } from "@dealstream/core"
import { Schema } from "effect"
import { customFields } from "../documented.js"
import { answerFields, createFields, patchFields } from "../fieldSchemas.js"

export const CompanyInput = Schema.StructWithRest(Schema.Struct(createFields(companyFields)), customFields).annotate({
  identifier: "CompanyInput",
  description: "A new company. Custom field values (object `company`) are top-level keys; any other unknown key is 400."
})

export const CompanyPatch = Schema.StructWithRest(Schema.Struct(patchFields(companyFields)), customFields).annotate({
  identifier: "CompanyPatch",
  description: "Only the keys present change; null clears an optional field."
})

/** The company's computed keys (core's companyFields.computed), as the engine answers them. */
const computed = {
  contact_ids: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({
      description: "Live contacts whose company_ids include this company (replaced by `contacts` with expand=contacts)."
    })
  ),
  deal_ids: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({
      description: "Live deals whose company_id is this company (replaced by `deals` with expand=deals)."
    })
  ),
  contacts: Schema.optionalKey(
    Schema.Array(Schema.Record(Schema.String, Schema.Unknown)).annotate({
      description: "Full contact objects, with expand=contacts."
    })
  ),
  deals: Schema.optionalKey(
    Schema.Array(Schema.Record(Schema.String, Schema.Unknown)).annotate({
      description: "Full deal objects, with expand=deals."
    })
  ),
  activities: Schema.optionalKey(
    Schema.Array(Schema.Record(Schema.String, Schema.Unknown)).annotate({
      description: "With expand=activities: its live activities, newest first, at most 100."
    })
  )
}

export const Company = Schema.StructWithRest(Schema.Struct(answerFields(companyFields, computed)), customFields).annotate({
  identifier: "Company"
})
