import type { Json, JsonObject } from "../json.js"

/**
 * An activity's links to the records it is about. Like a deal's link to a contact, a link outlives
 * the soft delete of the record it names: the stored list keeps it, so a restore of that record
 * brings it back, but every view of the activity leaves it out while the record is in the trash (and
 * for good once it is purged). These are the pure rules; the engine reads which records are live.
 */

export const ACTIVITY_LINKS = ["contact_ids", "deal_ids", "company_ids"] as const
export type ActivityLink = (typeof ACTIVITY_LINKS)[number]

/** Per link list: some of its ids (the unknown ones, the trashed ones, …). */
export type LinkIds = { readonly [L in ActivityLink]: ReadonlyArray<string> }

/** Per link list: a set of ids (the live ones). */
export type LinkSets = { readonly [L in ActivityLink]: ReadonlySet<string> }

/** One value per link list, made by `f`. */
export const perLink = <A>(f: (link: ActivityLink) => A): { readonly [L in ActivityLink]: A } => ({
  contact_ids: f("contact_ids"),
  deal_ids: f("deal_ids"),
  company_ids: f("company_ids")
})

export const noLinkIds: LinkIds = perLink(() => [])

/** The collection each list names records of, which is also the record type named in messages. */
export const linkedCollection = { contact_ids: "contact", deal_ids: "deal", company_ids: "company" } as const

export const linkIdsOf = (data: JsonObject, link: ActivityLink): ReadonlyArray<string> => {
  const value = data[link]
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : []
}

/** Every id these records link to, per list (a record without a list adds none to it). */
export const linksOf = (records: ReadonlyArray<JsonObject>): LinkIds => perLink((link) => records.flatMap((data) => linkIdsOf(data, link)))

/** The ids of each list that `keep` keeps. */
export const filterLinks = (ids: LinkIds, keep: (link: ActivityLink, id: string) => boolean): LinkIds =>
  perLink((link) => ids[link].filter((id) => keep(link, id)))

export const joinLinks = (a: LinkIds, b: LinkIds): LinkIds => perLink((link) => [...a[link], ...b[link]])

/** The activity as shown: each list limited to live records, every other key (and the key order) as stored. */
export const showingLiveLinks = (data: JsonObject, live: LinkSets): JsonObject => {
  const hidden = (link: ActivityLink) => linkIdsOf(data, link).some((id) => !live[link].has(id))
  if (!ACTIVITY_LINKS.some(hidden)) return data
  return Object.fromEntries(
    Object.entries(data).map(([key, value]): [string, Json] => {
      const link = ACTIVITY_LINKS.find((l) => l === key)
      return [key, link === undefined || !Array.isArray(value) ? value : value.filter((id) => typeof id === "string" && live[link].has(id))]
    })
  )
}

/**
 * What a PATCH of one list stores: the given (live) records, and the linked records now in the trash,
 * each after the element it followed: the rule every record's links share (record/links.ts).
 */
export { patchedLinks } from "../record/links.js"

/** Whether the activity names at least one record, in any list, trashed ones included. */
export const isLinked = (data: JsonObject): boolean => ACTIVITY_LINKS.some((link) => linkIdsOf(data, link).length > 0)
