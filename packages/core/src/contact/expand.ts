import { Result } from "effect"
import { ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"

/** What `expand` may add to a contact. */
export type ContactExpansion = "deals" | "activities"

/** The `expand` parameter (`deals,activities`, in any order, either alone); absent or blank is none. */
export const parseExpand = (raw: string | null): Result.Result<ReadonlySet<ContactExpansion>, ValidationError> => {
  const wanted = new Set<ContactExpansion>()
  if (raw === null || raw.trim() === "") return Result.succeed(wanted)
  for (const part of raw.split(",")) {
    const value = part.trim()
    if (value !== "deals" && value !== "activities") {
      return Result.fail(ValidationError.at("expand", `has an unknown value ${JSON.stringify(value)}; use deals, activities`))
    }
    wanted.add(value)
  }
  return Result.succeed(wanted)
}

/** The contact with what was expanded: its deals in place of `deal_ids`, then its activities. */
export const expandContact = (
  contact: JsonObject,
  expansions: { readonly deals?: ReadonlyArray<JsonObject>; readonly activities?: ReadonlyArray<JsonObject> }
): JsonObject => {
  let data = contact
  if (expansions.deals !== undefined) {
    const { deal_ids: _replaced, ...rest } = data
    data = { ...rest, deals: expansions.deals }
  }
  return expansions.activities === undefined ? data : { ...data, activities: expansions.activities }
}
