import { Result } from "effect"
import { ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"
import { isJsonObject } from "../json.js"
import { patchedLinks } from "../record/links.js"

/**
 * A contact's companies: `company_id` (the primary one) and `company_ids` (all of them, the primary
 * first), stored together. Links outlive a company's soft delete as a deal's links to contacts do
 * (record/links.ts): views leave a company in the trash out, a restore brings it back. These
 * are the pure rules; the engine reads which companies are live.
 */

const isString = (value: Json | undefined): value is string => typeof value === "string"

const stringsOf = (value: Json | undefined): ReadonlyArray<string> => (Array.isArray(value) ? value.filter(isString) : [])

/**
 * The stored `company_ids`; null for a contact written before contacts stored them, whose
 * `company_id` names no company (it was free text then) and is shown as it is.
 */
export const storedCompanyIds = (data: JsonObject): ReadonlyArray<string> | null => {
  const value = data["company_ids"]
  return Array.isArray(value) ? value.filter(isString) : null
}

/** The companies a stored contact links, the trashed ones included; none for a contact of before. */
export const linkedCompanyIds = (data: JsonObject): ReadonlyArray<string> => storedCompanyIds(data) ?? []

/**
 * A body's `company_id` and `company_ids` made one (a parsed body, whose keys are the ones it gave,
 * every standard key on a create): either alone sets the other (`company_id` alone: `[company_id]`,
 * null: `[]`; `company_ids` alone: its first element, or null); both: a `company_id` must be one of
 * them, and is moved first (null: no primary). A body giving neither is left as it is.
 */
export const withCompanies = (body: JsonObject, fields: JsonObject): Result.Result<JsonObject, ValidationError> => {
  const givesId = Object.hasOwn(body, "company_id")
  const givesIds = Object.hasOwn(body, "company_ids")
  if (!givesId && !givesIds) return Result.succeed(fields)
  const ids = givesIds ? stringsOf(fields["company_ids"]) : []
  const given = fields["company_id"]
  const companyId = givesId ? (isString(given) ? given : null) : (ids[0] ?? null)
  if (!givesIds) return Result.succeed({ ...fields, company_id: companyId, company_ids: companyId === null ? [] : [companyId] })
  if (companyId === null) return Result.succeed({ ...fields, company_id: null, company_ids: [...ids] })
  if (!ids.includes(companyId)) return Result.fail(ValidationError.at("company_id", "must be one of company_ids"))
  return Result.succeed({ ...fields, company_id: companyId, company_ids: [companyId, ...ids.filter((id) => id !== companyId)] })
}

/** A company id a body names, with the path of the body that names it. */
export interface NamedCompany {
  readonly id: string
  readonly path: string
}

/**
 * The company ids a body names, each once, at the key the client wrote it: `company_id` when it
 * gave that id there, else its element of `company_ids`. Whether they are live is the engine's
 * question; the decider refuses the ones that are not, at these paths.
 */
export const namedCompanies = (body: unknown): ReadonlyArray<NamedCompany> => {
  if (!isJsonObject(body)) return []
  const named: Array<NamedCompany> = []
  const companyId = body["company_id"]
  if (isString(companyId)) named.push({ id: companyId, path: "company_id" })
  const ids = body["company_ids"]
  if (Array.isArray(ids)) {
    ids.forEach((id, i) => {
      if (isString(id) && !named.some((n) => n.id === id)) named.push({ id, path: `company_ids[${i}]` })
    })
  }
  return named
}

/**
 * What a patch of the companies stores (`fields` made one by withCompanies): the given companies,
 * and the linked ones now in the trash, which the client cannot see and so cannot mean to drop
 * (kept where they stood, as a deal keeps its contacts). A null `company_id` keeps a primary that
 * is in the trash: it is what the client was shown. The primary comes first.
 */
export const patchedCompanies = (
  fields: JsonObject,
  stored: JsonObject,
  trashed: ReadonlySet<string>
): { readonly company_id: string | null; readonly company_ids: ReadonlyArray<string> } => {
  const ids = patchedLinks(stringsOf(fields["company_ids"]), linkedCompanyIds(stored), trashed)
  const given = fields["company_id"]
  const current = stored["company_id"]
  const companyId = isString(given) ? given : isString(current) && trashed.has(current) && ids.includes(current) ? current : null
  return { company_id: companyId, company_ids: companyId === null ? ids : [companyId, ...ids.filter((id) => id !== companyId)] }
}

/**
 * The contact's companies as shown, in place (`company_ids` right after `company_id`): only live
 * ones, and `company_id` null while its company is not live. A contact of before (no stored
 * `company_ids`) shows its `company_id` as stored, and `[company_id]`.
 */
export const showingLiveCompanies = (visible: JsonObject, live: ReadonlySet<string>): JsonObject => {
  const stored = storedCompanyIds(visible)
  const companyId = visible["company_id"] ?? null
  const shownId = stored === null || (isString(companyId) && live.has(companyId)) ? companyId : null
  const shownIds = stored === null ? (isString(companyId) ? [companyId] : []) : stored.filter((id) => live.has(id))
  const out: Record<string, Json> = {}
  for (const key of Object.keys(visible)) {
    if (key === "company_ids") continue
    if (key !== "company_id") {
      out[key] = visible[key]!
      continue
    }
    out["company_id"] = shownId
    out["company_ids"] = shownIds
  }
  if (!Object.hasOwn(out, "company_ids")) out["company_ids"] = shownIds
  return out
}
