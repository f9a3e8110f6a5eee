import { contactIdsOf } from "../deal/contactLinks.js"
import type { JsonObject } from "../json.js"

/** A deal as the derivation needs it: its id and its stored `contact_ids`. */
export interface LinkingDeal {
  readonly id: string
  readonly data: JsonObject
}

/**
 * The contact as the API shows it: its visible fields, then the associations derived at read time,
 * `deal_ids` (the deals among `deals` whose `contact_ids` name it; the contact's stream never holds
 * them, so a deal write never touches the contact) and `company_ids` (its `company_id`, when set).
 */
export const contactView = (contactId: string, visible: JsonObject, deals: ReadonlyArray<LinkingDeal>): JsonObject =>
  contactViewWith(visible, deals.filter((deal) => contactIdsOf(deal.data).includes(contactId)).map((deal) => deal.id))

/** The same, given the ids of the deals naming the contact (storage found them: readRecord). */
export const contactViewWith = (visible: JsonObject, dealIds: ReadonlyArray<string>): JsonObject => {
  const companyId = visible["company_id"]
  return {
    ...visible,
    deal_ids: [...dealIds],
    company_ids: typeof companyId === "string" ? [companyId] : []
  }
}
