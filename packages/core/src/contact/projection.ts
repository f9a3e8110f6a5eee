import type { Projected } from "../decider.js"
import { contactLife } from "./decider.js"
import type { ContactEvent } from "./events.js"

/**
 * The contact document as the API returns it, without `deal_ids` (derived at read time: the
 * contact's stream never holds them, so a deal write never touches the contact).
 */
export const projectContact = (doc: Projected | null, event: ContactEvent): Projected | null => contactLife.project(doc, event)

/** The unique key a live contact with this email holds: emails are unique whatever their case. */
export const emailKey = (email: string): string => `email:${email.toLowerCase()}`

export const contactUniqueKey = (projected: Projected): string | null => {
  const email = projected.data["email"]
  return projected.deletedAt === null && typeof email === "string" ? emailKey(email) : null
}
