import type { Json, JsonObject } from "../json.js"

export const jsonEquals = (a: Json | undefined, b: Json | undefined): boolean => {
  if (a === b) return true
  if (a === undefined || b === undefined || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((item, i) => jsonEquals(item, b[i]))
  }
  if (typeof a !== "object" || typeof b !== "object") return false
  const aObj = a as JsonObject
  const bObj = b as JsonObject
  const keys = Object.keys(aObj)
  return keys.length === Object.keys(bObj).length && keys.every((k) => Object.hasOwn(bObj, k) && jsonEquals(aObj[k], bObj[k]))
}

/**
 * The part of a patch that really changes the record. An absent key counts as null, so clearing a
 * custom field that was never set is no change.
 */
export const changedFields = (current: JsonObject, patch: JsonObject): JsonObject => {
  const changed: Record<string, Json> = {}
  for (const [key, value] of Object.entries(patch)) {
    if (!jsonEquals(current[key] ?? null, value)) changed[key] = value
  }
  return changed
}
