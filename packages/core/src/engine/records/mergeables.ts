import { activityAggregate } from "../../activity/index.js"
import { companyAggregate } from "../../company/index.js"
import { contactAggregate } from "../../contact/index.js"
import { dealAggregate } from "../../deal/index.js"
import type { EngineDeps } from "../base/deps.js"
import { makeDuplicates } from "./duplicates.js"
import { type LinkingRecords, makeMerge, type Mergeable } from "./merge.js"
import { type Linking, type Merging, mergeLinks } from "./mergeLinks.js"
import { makeUnmerge } from "./unmerge.js"
import type { RecordWrites } from "./recordService.js"
import type { TrashShown } from "./trash.js"

/** A record type's merge, unmerge and duplicates. */
const both = (deps: EngineDeps, mergeable: Mergeable, type: Merging) => ({
  ...makeMerge(deps, mergeable),
  ...makeUnmerge(deps, mergeable),
  ...makeDuplicates(deps, type)
})

/** A record type's service as a merge uses it. */
interface Served {
  readonly writes: RecordWrites
  readonly shown: TrashShown
}

const linkingAggregates = { contact: contactAggregate, deal: dealAggregate, activity: activityAggregate }

/**
 * The record types that merge (contacts, companies), each with the links that name its records
 * (mergeLinks.ts): the fields a merge re-points to the survivor, per linking record type.
 */
export const makeMerges = (deps: EngineDeps, served: Readonly<Record<Linking | "company", Served>>) => {
  /** The records whose fields name a merged record of `merging`, per type; the answer's `moved` lists them as `<type>_ids`. */
  const linkedBy = (merging: Merging): ReadonlyArray<LinkingRecords> =>
    Object.entries(mergeLinks[merging]).map(([type, fields]) => ({
      collection: type as Linking,
      aggregate: linkingAggregates[type as Linking],
      fields,
      moved: `${type}_ids`,
      commandOn: served[type as Linking].writes.commandOn
    }))
  return {
    contact: both(
      deps,
      {
        aggregate: contactAggregate,
        ...served.contact,
        rules: { unique: "email", unions: [{ array: "company_ids", primary: "company_id" }] },
        links: linkedBy("contact")
      },
      "contact"
    ),
    company: both(
      deps,
      {
        aggregate: companyAggregate,
        ...served.company,
        rules: { unique: "domain", unions: [] },
        links: linkedBy("company")
      },
      "company"
    )
  }
}
