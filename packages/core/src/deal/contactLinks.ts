import type { Json, JsonObject } from "../json.js"

/**
 * A deal's link to a contact outlives the contact's soft delete: the stored `contact_ids` keep it,
 * so a restore brings it back, but every view of the deal leaves it out while the contact is in the
 * trash (and for good once it is purged). These are the pure rules; the engine reads which contacts
 * are live.
 */

/** Read and patched as every record's links are (record/links.ts), under the deal's names. */
export { contactIdsOf, patchedLinks as patchedContactIds } from "../record/links.js"

/** The deal as shown: `contact_ids` limited to live contacts, every other key (and the key order) as stored. */
export const showingLiveContacts = (data: JsonObject, live: ReadonlySet<string>): JsonObject => {
  const ids = data["contact_ids"]
  if (!Array.isArray(ids) || ids.every((id) => typeof id === "string" && live.has(id))) return data
  const shown: Array<Json> = ids.filter((id) => typeof id === "string" && live.has(id))
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, key === "contact_ids" ? shown : value]))
}
