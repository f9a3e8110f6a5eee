import type { JsonObject } from "../json.js"

/**
 * What every record's links to other records share (a deal's contacts, a contact's companies, an
 * activity's lists): a link outlives the soft delete of the record it names, so a restore of that
 * record brings it back, while views leave it out. These are the pure rules; the engine reads
 * which records are live.
 */

/** The stored `contact_ids` of a record that links contacts (a deal, an activity). */
export const contactIdsOf = (data: JsonObject): ReadonlyArray<string> => {
  const value = data["contact_ids"]
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : []
}

/**
 * The record without its link to an erased contact: `contact_ids` without it, every other key (and
 * the key order) as it was. What a `contact_unlinked` event leaves of a deal or an activity.
 */
export const withoutContact = (data: JsonObject, contactId: string): JsonObject =>
  Object.hasOwn(data, "contact_ids")
    ? Object.fromEntries(
        Object.entries(data).map(([key, value]) => [
          key,
          key === "contact_ids" ? contactIdsOf(data).filter((id) => id !== contactId) : value
        ])
      )
    : data

/**
 * What a PATCH of a list of links stores: the given (live) records, and the linked records now in
 * the trash, which the client cannot see and so cannot mean to drop; each kept one stays after the
 * element it followed, so patching back the list a client was shown changes nothing.
 */
export const patchedLinks = (
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
