import { Schema } from "effect"
import { securedGroup } from "../documented.js"
import { searchParams } from "../parameters.js"
import { duplicatesEndpoint, mergeEndpoint, unmergeEndpoint } from "../merge.js"
import { batchEndpoint, recordEndpoints } from "../recordEndpoints.js"
import { Company, CompanyInput, CompanyPatch } from "./schemas.js"

/** The engine checks the values (unknown ones are 400 at `expand`); the schema documents them. */
const companyGetParams = {
  expand: Schema.optionalKey(
    Schema.String.annotate({
      description: "Comma-separated: `contacts`, `deals`, `activities`."
    })
  )
}

const companies = recordEndpoints({
  name: "Company",
  collection: "/v1/companies",
  merges: true,
  record: Company,
  input: CompanyInput,
  patch: CompanyPatch,
  list: {
    query: searchParams,
    description: "Search: words of name and domain. Sort fields: name, domain, created_at, updated_at and custom fields."
  },
  get: { query: companyGetParams }
})

export class CompaniesApi extends securedGroup(
  "companies",
  companies.list,
  companies.export,
  duplicatesEndpoint({
    name: "Company",
    type: "company",
    collection: "/v1/companies",
    rules: [
      ["domain", "the same domain, trimmed and lowercased, without a leading www."],
      ["name", "the same name, trimmed and lowercased"]
    ]
  }),
  companies.get,
  batchEndpoint({ name: "Company", collection: "/v1/companies" }, "domain"),
  companies.create,
  companies.update,
  companies.delete,
  companies.restore,
  companies.history,
  mergeEndpoint(
    { name: "Company", type: "company", collection: "/v1/companies", linking: ["contact_ids", "deal_ids", "activity_ids"] },
    Company
  ),
  unmergeEndpoint({ name: "Company", type: "company", collection: "/v1/companies" }, Company)
) {}
