import type { JsonObject } from "../json.js"

/** A contact or deal as the derivation needs it: its id and its stored fields. */
export interface LinkingRecord {
  readonly id: string
  readonly data: JsonObject
}

/** Whether a contact names the company among its `company_ids` (its primary one included). */
export const contactNamesCompany = (contact: JsonObject, companyId: string): boolean => {
  const ids = contact["company_ids"]
  return Array.isArray(ids) && ids.includes(companyId)
}

/** Whether a deal's `company_id` is the company. */
export const dealNamesCompany = (deal: JsonObject, companyId: string): boolean => deal["company_id"] === companyId

/**
 * The company as the API shows it: its visible fields, then `contact_ids` and `deal_ids`, the
 * records among `contacts` and `deals` that name it. Contacts and deals keep the link in their own
 * streams, so writing one never touches the company; the caller passes only live ones.
 */
export const companyView = (
  companyId: string,
  visible: JsonObject,
  contacts: ReadonlyArray<LinkingRecord>,
  deals: ReadonlyArray<LinkingRecord>
): JsonObject => ({
  ...visible,
  contact_ids: contacts.filter((contact) => contactNamesCompany(contact.data, companyId)).map((contact) => contact.id),
  deal_ids: deals.filter((deal) => dealNamesCompany(deal.data, companyId)).map((deal) => deal.id)
})
