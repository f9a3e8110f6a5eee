import type { JsonObject } from "../json.js"
import type { FieldRef, Position, Scalar, SortSpec } from "./ast.js"
import { compareText } from "./compareText.js"
import { scalarOf } from "./fieldValue.js"

/** The value a row sorts by: its field value, null when absent (see `scalarOf`). */
export const sortValueOf = (data: JsonObject, field: FieldRef): Scalar | null => scalarOf(data, field)

// Values of one field share a type once `scalarOf` has vetted them; ranking the types keeps the
// order total even for a hand-made cursor whose value has another type.
const typeRank = (value: Scalar): number => (typeof value === "boolean" ? 0 : typeof value === "number" ? 1 : 2)

/** Ascending order of present values: false < true, numbers numerically, strings by code point. */
export const compareScalars = (a: Scalar, b: Scalar): number => {
  if (typeof a === "string" && typeof b === "string") return compareText(a, b)
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1
  return typeRank(a) - typeRank(b)
}

/**
 * Ascending, absent values come after every present one, then ids break ties; descending is the
 * exact reverse, so absent values come first there (PostgreSQL's default NULLS LAST / NULLS FIRST
 * for `ORDER BY value ASC, id ASC` / `ORDER BY value DESC, id DESC`).
 */
export const comparePositions =
  (direction: SortSpec["direction"]) =>
  (a: Position, b: Position): number => {
    const byValue = a.value === null ? (b.value === null ? 0 : 1) : b.value === null ? -1 : compareScalars(a.value, b.value)
    const ascending = byValue !== 0 ? byValue : compareText(a.id, b.id)
    return direction === "asc" ? ascending : -ascending
  }

export const positionOf = (row: { readonly id: string; readonly data: JsonObject }, field: FieldRef): Position => ({
  value: sortValueOf(row.data, field),
  id: row.id
})

/** A total order on rows (ids are unique): the order pages are cut from. */
export const compareSortKeys = (sort: SortSpec) => {
  const compare = comparePositions(sort.direction)
  return (a: { id: string; data: JsonObject }, b: { id: string; data: JsonObject }): number =>
    compare(positionOf(a, sort.field), positionOf(b, sort.field))
}
