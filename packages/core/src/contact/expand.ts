import { Result } from "effect"
import { ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"

/**
 * An `expand` parameter: some of `allowed`, comma-separated, in any order, with spaces; absent or
 * blank is none; anything else is 400 at `expand`.
 */
export const parseExpansions = <A extends string>(
  raw: string | null,
  allowed: ReadonlyArray<A>
): Result.Result<ReadonlySet<A>, ValidationError> => {
  const wanted = new Set<A>()
  if (raw === null || raw.trim() === "") return Result.succeed(wanted)
  for (const part of raw.split(",")) {
    const value = part.trim()
    if (!(allowed as ReadonlyArray<string>).includes(value)) {
      return Result.fail(ValidationError.at("expand", `has an unknown value ${JSON.stringify(value)}; use ${allowed.join(", ")}`))
    }
    wanted.add(value as A)
  }
  return Result.succeed(wanted)
}

/** What `expand` may add to a contact. */
export type ContactExpansion = "deals" | "companies" | "activities"

export const CONTACT_EXPANSIONS: ReadonlyArray<ContactExpansion> = ["deals", "companies", "activities"]

/** The `expand` parameter of a contact (`deals,companies,activities`). */
export const parseExpand = (raw: string | null): Result.Result<ReadonlySet<ContactExpansion>, ValidationError> =>
  parseExpansions(raw, CONTACT_EXPANSIONS)

/**
 * The contact with what was expanded: `deals` in place of `deal_ids`, `companies` in place of
 * `company_ids`, then `activities`; the added keys come after those kept, in
 * contactFields.computed's order, as every derived key does.
 */
export const expandContact = (
  contact: JsonObject,
  expansions: {
    readonly deals?: ReadonlyArray<JsonObject>
    readonly companies?: ReadonlyArray<JsonObject>
    readonly activities?: ReadonlyArray<JsonObject>
  }
): JsonObject => {
  const replaced = new Set([
    ...(expansions.deals === undefined ? [] : ["deal_ids"]),
    ...(expansions.companies === undefined ? [] : ["company_ids"])
  ])
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(contact)) if (!replaced.has(key)) out[key] = value
  if (expansions.deals !== undefined) out["deals"] = expansions.deals
  if (expansions.companies !== undefined) out["companies"] = expansions.companies
  if (expansions.activities !== undefined) out["activities"] = expansions.activities
  return out
}
