import type { Projected } from "../decider.js"
import { companyLife } from "./decider.js"
import type { CompanyEvent } from "./events.js"

/**
 * The company document, without `contact_ids`/`deal_ids`: contacts and deals name the company in
 * their own streams, so those are derived when the company is read.
 */
export const projectCompany = (doc: Projected | null, event: CompanyEvent): Projected | null => companyLife.project(doc, event)

/** The unique key of the live company with this domain; the field check lower-cases, and so does this, for upsert's match. */
export const domainKey = (domain: string): string => `domain:${domain.trim().toLowerCase()}`

/** A live company with a domain holds its key; one without a domain, or in the trash, holds none. */
export const companyUniqueKey = (projected: Projected): string | null => {
  const domain = projected.data["domain"]
  return projected.deletedAt === null && typeof domain === "string" ? domainKey(domain) : null
}
