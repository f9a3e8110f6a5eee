import type { JsonObject } from "../json.js"
import type { DerivedField, FieldRef, Scalar } from "./ast.js"
import { canonicalDate, canonicalTimestamp } from "./calendar.js"

/**
 * The value of a field as the query language sees it, or null when it is absent. Absent means a
 * missing key, `null`, or a value whose JSON type does not fit the field's type: a custom field
 * deleted and re-created with another type leaves such stale values behind, and they must neither
 * match nor sort as if they were of the new type. The checks are ones SQL can repeat exactly:
 * `jsonb_typeof`, plus the canonical shape of dates and timestamps.
 */
export const scalarOf = (data: JsonObject, field: FieldRef): Scalar | null => {
  if (field.derived !== undefined) return derivedOf(data, field.derived)
  const value = Object.hasOwn(data, field.name) ? data[field.name] : undefined
  switch (field.type) {
    case "text":
    case "id":
    case "enum":
      return typeof value === "string" ? value : null
    case "date":
      return typeof value === "string" && canonicalDate.test(value) ? value : null
    case "timestamp":
      return typeof value === "string" && canonicalTimestamp.test(value) ? value : null
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? value : null
    case "boolean":
      return typeof value === "boolean" ? value : null
    case "id_array":
      return null
  }
}

/** The string elements of an `id_array` field; null when absent or not an array. */
export const elementsOf = (data: JsonObject, field: FieldRef): ReadonlyArray<string> | null => {
  if (field.type !== "id_array") return null
  const value = Object.hasOwn(data, field.name) ? data[field.name] : undefined
  return Array.isArray(value) ? value.filter((element): element is string => typeof element === "string") : null
}

const finite = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null)

/** A derived field's value (ast.ts's DerivedField), null when it has none. */
const derivedOf = (data: JsonObject, derived: DerivedField): number | null => {
  const value = finite(data["value"])
  const stage = data["stage_id"]
  const probability = finite(data["probability"]) ?? derived.stages.find(([id]) => id === stage)?.[1] ?? null
  return value === null || probability === null ? null : value * probability
}
