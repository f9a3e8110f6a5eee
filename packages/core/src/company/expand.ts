import type { Result } from "effect"
import type { ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"
import { parseExpansions, withExpansions } from "../record/expand.js"

/** What `expand` may add to a company. */
export type CompanyExpansion = "contacts" | "deals" | "activities"

const EXPANSIONS: ReadonlyArray<CompanyExpansion> = ["contacts", "deals", "activities"]

/** The `expand` parameter of a company (`contacts,deals,activities`, any of them, any order); absent or blank is none. */
export const parseCompanyExpand = (raw: string | null): Result.Result<ReadonlySet<CompanyExpansion>, ValidationError> =>
  parseExpansions(raw, EXPANSIONS)

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
): JsonObject =>
  withExpansions(company, [
    ["contacts", "contact_ids", expansions.contacts],
    ["deals", "deal_ids", expansions.deals],
    ["activities", null, expansions.activities]
  ])
