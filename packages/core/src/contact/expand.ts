import type { Result } from "effect"
import type { ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"
import { parseExpansions, withExpansions } from "../record/expand.js"

/** Parsed as every record's `expand` parameter is (record/expand.ts). */
export { parseExpansions } from "../record/expand.js"

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
): JsonObject =>
  withExpansions(contact, [
    ["deals", "deal_ids", expansions.deals],
    ["companies", "company_ids", expansions.companies],
    ["activities", null, expansions.activities]
  ])
