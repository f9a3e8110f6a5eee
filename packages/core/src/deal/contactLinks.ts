import type { Json, JsonObject } from "../json.js"

/**
 * A deal's link to a contact outlives the contact's soft delete: the stored `contact_ids` keep it,
 * so a restore brings it back, but every view of the deal leaves it out while the contact is in the
 * trash (and for good once it is purged). These are the pure rules; the engine reads which contacts
 * are live.
 */

export const contactIdsOf = (data: JsonObject): ReadonlyArray<string> => {
  const value = data["contact_ids"]
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : []
}

/** The deal as shown: `contact_ids` limited to live contacts, every other key (and the key order) as stored. */
export const showingLiveContacts = (data: JsonObject, live: ReadonlySet<string>): JsonObject => {
  const ids = data["contact_ids"]
  if (!Array.isArray(ids) || ids.every((id) => typeof id === "string" && live.has(id))) return data
  const shown: Array<Json> = ids.filter((id) => typeof id === "string" && live.has(id))
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, key === "contact_ids" ? shown : value]))
}

/**
 * What a PATCH of `contact_ids` stores: the given (live) contacts, and the linked contacts now in the
 * trash, which the client cannot see and so cannot mean to drop; each kept one stays after the
 * element it followed, so patching back the list a client was shown changes nothing.
 */
export const patchedContactIds = (
  given: ReadonlyArray<string>,
  stored: ReadonlyArray<string>,
  trashed: ReadonlySet<string>
): ReadonlyArray<string> => {
  const result = given.filter((id, i) => given.indexOf(id) === i)
  stored.forEach((id, i) => {
    if (!trashed.has(id) || result.includes(id)) return
    let before = i - 1
    while (before >= 0 && !result.includes(stored[before]!)) before--
    result.splice(before < 0 ? 0 : result.indexOf(stored[before]!) + 1, 0, id)
  })
  return result
}
