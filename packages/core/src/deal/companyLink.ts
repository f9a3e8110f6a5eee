import type { JsonObject } from "../json.js"

/**
 * A deal's `company_id` outlives the company's soft delete, as its contact links do
 * (contactLinks.ts): the stored value keeps it, so a restore brings it back, while every view shows
 * null for as long as the company is not live. These are the pure rules; the engine reads which
 * companies are live.
 */

export const companyIdOf = (data: JsonObject): string | null => {
  const value = data["company_id"]
  return typeof value === "string" ? value : null
}

/** The deal as shown: `company_id` null unless its company is live, every other key (and the key order) as stored. */
export const showingLiveCompany = (data: JsonObject, live: ReadonlySet<string>): JsonObject => {
  const companyId = companyIdOf(data)
  return companyId === null || live.has(companyId) ? data : { ...data, company_id: null }
}

/**
 * What a patch of `company_id` stores: null given while the deal's company is in the trash keeps
 * it (the client was shown null and cannot mean to drop what it cannot see); anything else as given.
 */
export const patchedCompanyId = (given: JsonObject, stored: JsonObject, trashed: string | null): JsonObject =>
  given["company_id"] === null && trashed !== null && companyIdOf(stored) === trashed
    ? Object.fromEntries(Object.entries(given).filter(([key]) => key !== "company_id"))
    : given
