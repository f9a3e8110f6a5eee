import { activityAggregate } from "../../activity/index.js"
import { companyAggregate } from "../../company/index.js"
import { contactAggregate } from "../../contact/index.js"
import { dealAggregate } from "../../deal/index.js"
import type { EngineDeps } from "../base/deps.js"
import { makeMerge, type Mergeable } from "./merge.js"
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

/**
 * The record types that merge (contacts, companies), each with the links that name its records: the
 * fields a merge re-points to the survivor, per linking record type. A contact's companies are a
 * union (record/merge.ts); a company's contacts and deals are derived from theirs, so they move.
 */
export const makeMerges = (
  deps: EngineDeps,
  served: { readonly contact: Served; readonly deal: Served; readonly company: Served; readonly activity: Served }
) => ({
  contact: both(deps, {
    aggregate: contactAggregate,
    ...served.contact,
    rules: { unique: "email", unions: [{ array: "company_ids", primary: "company_id" }] },
    links: [
      {
        collection: "deal",
        aggregate: dealAggregate,
        fields: [{ name: "contact_ids", type: "id_array" }],
        moved: "deal_ids",
        commandOn: served.deal.writes.commandOn
      },
      {
        collection: "activity",
        aggregate: activityAggregate,
        fields: [{ name: "contact_ids", type: "id_array" }],
        moved: "activity_ids",
        commandOn: served.activity.writes.commandOn
      }
    ]
  }),
  company: both(deps, {
    aggregate: companyAggregate,
    ...served.company,
    rules: { unique: "domain", unions: [] },
    links: [
      {
        collection: "contact",
        aggregate: contactAggregate,
        fields: [
          { name: "company_ids", type: "id_array" },
          { name: "company_id", type: "id" }
        ],
        moved: "contact_ids",
        commandOn: served.contact.writes.commandOn
      },
      {
        collection: "deal",
        aggregate: dealAggregate,
        fields: [{ name: "company_id", type: "id" }],
        moved: "deal_ids",
        commandOn: served.deal.writes.commandOn
      },
      {
        collection: "activity",
        aggregate: activityAggregate,
        fields: [{ name: "company_ids", type: "id_array" }],
        moved: "activity_ids",
        commandOn: served.activity.writes.commandOn
      }
    ]
  })
})
