import { Result } from "effect"
import { ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"

/** What `expand` may add to a company. */
export type CompanyExpansion = "contacts" | "deals" | "activities"

const EXPANSIONS: ReadonlyArray<CompanyExpansion> = ["contacts", "deals", "activities"]

const isExpansion = (value: string): value is CompanyExpansion => (EXPANSIONS as ReadonlyArray<string>).includes(value)

/** The `expand` parameter of a company (`contacts,deals,activities`, any of them, any order); absent or blank is none. */
export const parseCompanyExpand = (raw: string | null): Result.Result<ReadonlySet<CompanyExpansion>, ValidationError> => {
  const wanted = new Set<CompanyExpansion>()
  if (raw === null || raw.trim() === "") return Result.succeed(wanted)
  for (const part of raw.split(",")) {
    const value = part.trim()
    if (!isExpansion(value)) {
      return Result.fail(ValidationError.at("expand", `has an unknown value ${JSON.stringify(value)}; use ${EXPANSIONS.join(", ")}`))
    }
    wanted.add(value)
  }
  return Result.succeed(wanted)
}

/**
 * The company with what was expanded: `contacts` in place of `contact_ids`, `deals` in place of
 * `deal_ids`, then `activities`; the added keys come after those kept, in companyFields.computed's
 * order, as every derived key does.
 */
export const expandCompany = (
  company: JsonObject,
  expansions: {
    readonly contacts?: ReadonlyArray<JsonObject>
    readonly deals?: ReadonlyArray<JsonObject>
    readonly activities?: ReadonlyArray<JsonObject>
  }
): JsonObject => {
  const { contact_ids, deal_ids, ...rest } = company
  return {
    ...rest,
    ...(expansions.contacts === undefined && contact_ids !== undefined ? { contact_ids } : {}),
    ...(expansions.deals === undefined && deal_ids !== undefined ? { deal_ids } : {}),
    ...(expansions.contacts === undefined ? {} : { contacts: expansions.contacts }),
    ...(expansions.deals === undefined ? {} : { deals: expansions.deals }),
    ...(expansions.activities === undefined ? {} : { activities: expansions.activities })
  }
}
