import { activityAggregate } from "../../activity/index.js"
import { companyAggregate } from "../../company/index.js"
import { contactAggregate } from "../../contact/index.js"
import { dealAggregate } from "../../deal/index.js"
import type { EngineDeps } from "../base/deps.js"
import { type LinkingRecords, makeMerge, type Mergeable } from "./merge.js"
import { makeUnmerge } from "./unmerge.js"
import type { RecordWrites } from "./recordService.js"
import type { TrashShown } from "./trash.js"

/** A record type's merge and unmerge. */
const both = (deps: EngineDeps, mergeable: Mergeable) => ({ ...makeMerge(deps, mergeable), ...makeUnmerge(deps, mergeable) })

/** A record type's service as a merge uses it. */
interface Served {
  readonly writes: RecordWrites
  readonly shown: TrashShown
}

type Linking = "contact" | "deal" | "activity"

const linkingAggregates = { contact: contactAggregate, deal: dealAggregate, activity: activityAggregate }

/**
 * The record types that merge (contacts, companies), each with the links that name its records: the
 * fields a merge re-points to the survivor, per linking record type. A contact's companies are a
 * union (record/merge.ts); a company's contacts and deals are derived from theirs, so they move.
 */
export const makeMerges = (deps: EngineDeps, served: Readonly<Record<Linking | "company", Served>>) => {
  /** The records of `type` whose `fields` name a merged record; the answer's `moved` lists them as `<type>_ids`. */
  const linkedBy = (type: Linking, fields: LinkingRecords["fields"]): LinkingRecords => ({
    collection: type,
    aggregate: linkingAggregates[type],
    fields,
    moved: `${type}_ids`,
    commandOn: served[type].writes.commandOn
  })
  return {
    contact: both(deps, {
      aggregate: contactAggregate,
      ...served.contact,
      rules: { unique: "email", unions: [{ array: "company_ids", primary: "company_id" }] },
      links: [
        linkedBy("deal", [{ name: "contact_ids", type: "id_array" }]),
        linkedBy("activity", [{ name: "contact_ids", type: "id_array" }])
      ]
    }),
    company: both(deps, {
      aggregate: companyAggregate,
      ...served.company,
      rules: { unique: "domain", unions: [] },
      links: [
        linkedBy("contact", [
          { name: "company_ids", type: "id_array" },
          { name: "company_id", type: "id" }
        ]),
        linkedBy("deal", [{ name: "company_id", type: "id" }]),
        linkedBy("activity", [{ name: "company_ids", type: "id_array" }])
      ]
    })
  }
}
