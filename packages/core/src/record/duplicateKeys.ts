import { linkedCompanyIds } from "../contact/companyLinks.js"
import type { Json, JsonObject } from "../json.js"
import { compareText } from "../query/compareText.js"

/**
 * Finding duplicates (API.md, "Merge and duplicates"): the keys under which a live record is
 * grouped with others. Two records are duplicates by a rule when they share its key.
 *
 * - contacts: `phone` (its digits, 7 or more), `name_company` (first and last name, trimmed and
 *   lowercased, and one company the contact links: one key per company, `<company id> <first>
 *   <last>`, so the key says which company they share). The companies linked are
 *   contact/companyLinks.ts's linkedCompanyIds: a contact written before contacts stored
 *   `company_ids` links none (its `company_id` was free text then), so it has no such key. API.md's
 *   third rule, the same email (trimmed, lowercased), can never group live contacts: a live
 *   contact's email is its unique key, compared the same way, and a second one is refused (409). So
 *   no key is kept for it: it would cost every contact's commit a row and never answer anything;
 * - companies: `domain` (trimmed, lowercased, without a leading `www.`), `name` (trimmed, lowercased).
 *
 * Lowercasing is JavaScript's toLowerCase(), trimming removes ASCII whitespace, and keys are cut to
 * their first 200 code points. PostgreSQL computes the same keys in SQL (storage-pg migration 0031,
 * whose companies 0032 corrects, from the documents' `folded` column, which holds exactly these
 * lowercase values), and a property (test/engine/duplicates.*) holds the two to one answer.
 */

export type DuplicateCollection = "contact" | "company"

export interface DuplicateKey {
  readonly rule: string
  readonly key: string
}

/** A page of groups: at least two live records sharing a key, in (rule, key) order. */
export interface DuplicateGroup extends DuplicateKey {
  readonly ids: ReadonlyArray<string>
}

export const DUPLICATE_KEY_LENGTH = 200

const ASCII_SPACE = /^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g

const text = (value: Json | undefined): string => (typeof value === "string" ? value.toLowerCase().replace(ASCII_SPACE, "") : "")

const cut = (key: string): string => {
  const points = [...key]
  return points.length <= DUPLICATE_KEY_LENGTH ? key : points.slice(0, DUPLICATE_KEY_LENGTH).join("")
}

/** A live record's duplicate keys (none repeated). */
export const duplicateKeys = (collection: DuplicateCollection, data: JsonObject): ReadonlyArray<DuplicateKey> => {
  const keys: Array<DuplicateKey> = []
  if (collection === "contact") {
    const phone = typeof data["phone"] === "string" ? data["phone"].replace(/[^0-9]/g, "") : ""
    if (phone.length >= 7) keys.push({ rule: "phone", key: phone })
    const first = text(data["first_name"])
    const last = text(data["last_name"])
    if (first !== "" || last !== "")
      for (const company of linkedCompanyIds(data)) keys.push({ rule: "name_company", key: `${company} ${first} ${last}` })
  } else {
    const domain = text(data["domain"]).replace(/^www\./, "")
    if (domain !== "") keys.push({ rule: "domain", key: domain })
    const name = text(data["name"])
    if (name !== "") keys.push({ rule: "name", key: name })
  }
  const unique = new Map(keys.map((k) => [`${k.rule}\u0001${cut(k.key)}`, { rule: k.rule, key: cut(k.key) }]))
  return [...unique.values()]
}

/** Orders keys as PostgreSQL's `ORDER BY rule, key` under COLLATE "C". */
export const compareDuplicateKeys = (a: DuplicateKey, b: DuplicateKey): number => compareText(a.rule, b.rule) || compareText(a.key, b.key)

/**
 * The groups among `records` (live ones of one workspace), after `after`, at most `limit`: what
 * a storage without an index computes by reading them all (memory storage).
 */
export const duplicateGroupsOf = (
  collection: DuplicateCollection,
  records: Iterable<{ readonly id: string; readonly data: JsonObject }>,
  after: DuplicateKey | null,
  limit: number
): ReadonlyArray<DuplicateGroup> => {
  const groups = new Map<string, { readonly rule: string; readonly key: string; readonly ids: Array<string> }>()
  for (const record of records) {
    for (const key of duplicateKeys(collection, record.data)) {
      const slot = `${key.rule}\u0001${key.key}`
      const group = groups.get(slot) ?? { ...key, ids: [] }
      group.ids.push(record.id)
      groups.set(slot, group)
    }
  }
  return [...groups.values()]
    .filter((group) => group.ids.length > 1 && (after === null || compareDuplicateKeys(group, after) > 0))
    .sort(compareDuplicateKeys)
    .slice(0, limit)
    .map((group) => ({ ...group, ids: [...group.ids].sort(compareText) }))
}

/** A group as the API shows it: the rule, the value shared (a name_company group also names its company). */
export const duplicateGroupView = (group: DuplicateGroup): JsonObject => {
  if (group.rule !== "name_company") return { ids: [...group.ids], rule: group.rule, value: group.key }
  const space = group.key.indexOf(" ")
  return { ids: [...group.ids], rule: group.rule, value: group.key.slice(space + 1).trim(), company_id: group.key.slice(0, space) }
}
