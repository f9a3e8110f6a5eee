import type { Json, JsonObject } from "../json.js"
import { contactIdsOf } from "../record/links.js"
import { showingLiveCompanies } from "./companyLinks.js"

/** A deal as the derivation needs it: its id and its stored `contact_ids`. */
export interface LinkingDeal {
  readonly id: string
  readonly data: JsonObject
}

/**
 * The contact as the API shows it: its visible fields with its companies limited to the live ones
 * (`live`: the live companies among those it links), then `deal_ids`, derived at read time (the
 * deals among `deals` whose `contact_ids` name it; the contact's stream never holds them, so a deal
 * write never touches the contact).
 */
export const contactView = (
  contactId: string,
  visible: JsonObject,
  deals: ReadonlyArray<LinkingDeal>,
  live: ReadonlySet<string>
): JsonObject =>
  contactViewWith(
    visible,
    deals.filter((deal) => contactIdsOf(deal.data).includes(contactId)).map((deal) => deal.id),
    live
  )

/** The same, given the ids of the deals naming the contact (storage found them: readRecord). */
export const contactViewWith = (visible: JsonObject, dealIds: ReadonlyArray<string>, live: ReadonlySet<string>): JsonObject => {
  // showingLiveCompanies makes a new object: adding to it spares a copy per contact of an export.
  const view: Record<string, Json> = showingLiveCompanies(visible, live)
  view["deal_ids"] = [...dealIds]
  return view
}
