import type { Result } from "effect"
import type { ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"
import { parseExpansions } from "../record/expand.js"

/** What `expand` may add to a deal. */
export type DealExpansion = "companies" | "activities"

export const DEAL_EXPANSIONS: ReadonlyArray<DealExpansion> = ["companies", "activities"]

/** The `expand` parameter of a deal (`companies,activities`). */
export const parseDealExpand = (raw: string | null): Result.Result<ReadonlySet<DealExpansion>, ValidationError> =>
  parseExpansions(raw, DEAL_EXPANSIONS)

/**
 * The deal with what was expanded, after its keys: `companies`, its company as a list of none or
 * one (the same key and shape as on a contact, so one client reads both; `company_id` stays), then
 * `activities`.
 */
export const expandDeal = (
  deal: JsonObject,
  expansions: { readonly companies?: ReadonlyArray<JsonObject>; readonly activities?: ReadonlyArray<JsonObject> }
): JsonObject => ({
  ...deal,
  ...(expansions.companies === undefined ? {} : { companies: expansions.companies }),
  ...(expansions.activities === undefined ? {} : { activities: expansions.activities })
})
