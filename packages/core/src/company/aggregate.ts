import { type Aggregate, recordDocument } from "../aggregate.js"
import { uniqueFieldTaken } from "../record/uniqueField.js"
import type { CompanyCommand } from "./commands.js"
import { companyDecider, type CompanyState } from "./decider.js"
import { CompanyEvent } from "./events.js"
import { companyUniqueKey, projectCompany } from "./projection.js"

export const companyAggregate: Aggregate<CompanyCommand, CompanyEvent, CompanyState> = {
  name: "company",
  prefix: "comp",
  decider: companyDecider,
  events: CompanyEvent,
  project: projectCompany,
  documents: recordDocument("company", projectCompany, { searched: "company", uniqueKey: companyUniqueKey }),
  searched: true,
  collections: ["company"],
  rebuilt: true,
  purge: (id, at) => ({ type: "PurgeCompany", id, at }),
  // A domain names one live company.
  uniqueKeyTaken: uniqueFieldTaken("company", "domain")
}
