import { expansionsOf } from "../record/expand.js"

/**
 * What `expand` may add to a company (`contacts,deals,activities`, any of them, any order; absent or
 * blank is none): `contacts` in place of `contact_ids`, `deals` in place of `deal_ids`, then
 * `activities`, after the keys kept, in companyFields.computed's order, as every derived key does.
 */
const companyExpansions = expansionsOf([
  ["contacts", "contact_ids"],
  ["deals", "deal_ids"],
  ["activities", null]
])

export type CompanyExpansion = (typeof companyExpansions.keys)[number]
export const parseCompanyExpand = companyExpansions.parse
export const expandCompany = companyExpansions.apply
