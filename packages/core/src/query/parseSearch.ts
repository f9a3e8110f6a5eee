import { Result } from "effect"
import { ValidationError } from "../errors.js"
import type { Expr } from "./ast.js"
import { searchFieldsOf } from "./documentSearchWords.js"
import type { FieldCatalog } from "./fields.js"

export const searchLimits = { length: 200, terms: 10 } as const

/**
 * The `search` query parameter: whitespace-separated terms, each of which must be a prefix of a word
 * of a searchable field (or of the whole value of a wholeWord field). Null when absent or blank.
 */
export const parseSearch = (raw: string | undefined, catalog: FieldCatalog): Result.Result<Expr | null, ValidationError> => {
  if (raw === undefined || raw.trim() === "") return Result.succeed(null)
  if (raw.length > searchLimits.length) {
    return Result.fail(ValidationError.at("search", `is longer than ${searchLimits.length} characters`))
  }
  const terms = raw
    .trim()
    .split(/\s+/)
    .map((term) => term.toLowerCase())
  if (terms.length > searchLimits.terms) {
    return Result.fail(ValidationError.at("search", `has more than ${searchLimits.terms} terms`))
  }
  return Result.succeed({ _tag: "Search", ...searchFieldsOf(catalog), terms })
}
