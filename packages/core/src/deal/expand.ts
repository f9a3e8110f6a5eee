import { expansionsOf } from "../record/expand.js"

/**
 * What `expand` may add to a deal (`companies,activities`), after its keys: `companies`, its company
 * as a list of none or one (the same key and shape as on a contact, so one client reads both;
 * `company_id` stays), then `activities`.
 */
const dealExpansions = expansionsOf([
  ["companies", null],
  ["activities", null]
])

export type DealExpansion = (typeof dealExpansions.keys)[number]
export const DEAL_EXPANSIONS: ReadonlyArray<DealExpansion> = dealExpansions.keys
export const parseDealExpand = dealExpansions.parse
export const expandDeal = dealExpansions.apply
