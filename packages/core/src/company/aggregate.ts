import { type Aggregate, recordDocument } from "../aggregate.js"
import { Conflict } from "../errors.js"
import type { CompanyCommand } from "./commands.js"
import { companyDecider, type CompanyState } from "./decider.js"
import { CompanyEvent } from "./events.js"
import { companyUniqueKey, projectCompany } from "./projection.js"

/** A domain names one live company; the refusal says which one holds it. */
const domainTaken = (existingId: string, command: CompanyCommand): Conflict =>
  command.type === "RestoreCompany"
    ? new Conflict({
        message: "the company's domain is now used by another live company",
        details: [{ path: "domain", message: `is now used by ${existingId}`, id: existingId }]
      })
    : new Conflict({
        message: "a live company with this domain already exists",
        details: [{ path: "domain", message: `is already used by ${existingId}`, id: existingId }]
      })

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
  uniqueKeyTaken: domainTaken
}
