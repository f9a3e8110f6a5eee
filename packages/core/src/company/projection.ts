import type { Projected } from "../decider.js"
import type { Json, JsonObject } from "../json.js"
import type { CompanyEvent } from "./events.js"

/** Custom keys set by a later patch still come before `created_at, updated_at`, as on creation. */
const patched = (data: JsonObject, changed: JsonObject, at: string): JsonObject => {
  const { created_at, updated_at: _, ...rest } = data
  return { ...rest, ...changed, created_at: created_at ?? null, updated_at: at }
}

/**
 * The company document, without `contact_ids`/`deal_ids`: contacts and deals name the company in
 * their own streams, so those are derived when the company is read. Delete and restore only move
 * `deletedAt`, so a restored company is the document it was.
 */
export const projectCompany = (doc: Projected | null, event: CompanyEvent): Projected | null => {
  switch (event.type) {
    case "company.created": {
      const { at, fields, id } = event.data
      const data: Record<string, Json> = { id, ...fields, created_at: at, updated_at: at }
      return { data, deletedAt: null }
    }
    case "company.updated":
      return doc === null ? null : { ...doc, data: patched(doc.data, event.data.changed, event.data.at) }
    case "company.deleted":
      return doc === null ? null : { ...doc, deletedAt: event.data.at }
    case "company.restored":
      return doc === null ? null : { ...doc, deletedAt: null }
    case "company.purged":
      return null
  }
}

/** The unique key of the live company with this domain; the field check lower-cases, and so does this, for upsert's match. */
export const domainKey = (domain: string): string => `domain:${domain.trim().toLowerCase()}`

/** A live company with a domain holds its key; one without a domain, or in the trash, holds none. */
export const companyUniqueKey = (projected: Projected): string | null => {
  const domain = projected.data["domain"]
  return projected.deletedAt === null && typeof domain === "string" ? domainKey(domain) : null
}
