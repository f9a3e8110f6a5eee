import type { Projected } from "../decider.js"
import type { Json, JsonObject } from "../json.js"
import type { ContactEvent } from "./events.js"

/** Keeps `created_at, updated_at` last, after custom keys added later, as on creation. */
const withTimestamps = (data: JsonObject, changed: JsonObject, updatedAt: string): JsonObject => {
  const { created_at, updated_at: _, ...rest } = data
  return { ...rest, ...changed, created_at: created_at ?? null, updated_at: updatedAt }
}

/**
 * The contact document as the API returns it, without `deal_ids`/`company_ids` (derived at read
 * time). Delete and restore only toggle `deletedAt` and leave `data` alone, so a restore gives back
 * the identical document.
 */
export const projectContact = (doc: Projected | null, event: ContactEvent): Projected | null => {
  switch (event.type) {
    case "contact.created": {
      const { at, fields, id } = event.data
      const data: Record<string, Json> = { id, ...fields, created_at: at, updated_at: at }
      return { data, deletedAt: null }
    }
    case "contact.updated":
      return doc === null ? null : { ...doc, data: withTimestamps(doc.data, event.data.changed, event.data.at) }
    case "contact.deleted":
      return doc === null ? null : { ...doc, deletedAt: event.data.at }
    case "contact.restored":
      return doc === null ? null : { ...doc, deletedAt: null }
    case "contact.purged":
      return null
  }
}

/** Live contacts share one email space, compared case-insensitively; a deleted one frees its email. */
/** The unique key a live contact with this email holds: emails are unique whatever their case. */
export const emailKey = (email: string): string => `email:${email.toLowerCase()}`

export const contactUniqueKey = (projected: Projected): string | null => {
  const email = projected.data["email"]
  return projected.deletedAt === null && typeof email === "string" ? emailKey(email) : null
}
