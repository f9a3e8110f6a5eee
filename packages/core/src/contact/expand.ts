import { expansionsOf } from "../record/expand.js"

/** Parsed as every record's `expand` parameter is (record/expand.ts). */
export { parseExpansions } from "../record/expand.js"

/**
 * What `expand` may add to a contact (`deals,companies,activities`): `deals` in place of `deal_ids`,
 * `companies` in place of `company_ids`, then `activities`; the added keys come after those kept, in
 * contactFields.computed's order, as every derived key does.
 */
const contactExpansions = expansionsOf([
  ["deals", "deal_ids"],
  ["companies", "company_ids"],
  ["activities", null]
])

export type ContactExpansion = (typeof contactExpansions.keys)[number]
export const CONTACT_EXPANSIONS: ReadonlyArray<ContactExpansion> = contactExpansions.keys
export const parseExpand = contactExpansions.parse
export const expandContact = contactExpansions.apply
