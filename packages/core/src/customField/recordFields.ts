import { Result } from "effect"
import type { ErrorDetail } from "../errors.js"
import { ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"
import { isJsonObject } from "../json.js"
import type { CustomFieldDefinition, CustomFieldObject } from "./definition.js"
import type { FieldCheck } from "./fieldValues.js"
import { customValueCheck } from "./fieldValues.js"

/** What a contact or deal body may carry besides the workspace's custom fields. */
export interface RecordShape {
  readonly object: CustomFieldObject
  readonly standard: Readonly<Record<string, FieldCheck>>
  /** Keys the service sets itself: named as read-only rather than unknown, to help the client. */
  readonly readOnly: ReadonlyArray<string>
  readonly required: ReadonlyArray<string>
}

export interface RecordFields {
  /** The accepted keys, in body order. */
  readonly fields: Record<string, Json>
  /** Every offending key, the missing required ones first. */
  readonly details: ReadonlyArray<ErrorDetail>
}

export const notAnObject = (): ValidationError => ValidationError.at("", "body must be a JSON object")

/**
 * Reads a record body key by key against the standard fields and the custom field definitions of
 * its object. Only a body that is not an object fails here; per-key problems are collected so the
 * caller can add its own before answering with all of them.
 */
export const readRecordFields = (
  body: unknown,
  shape: RecordShape,
  definitions: ReadonlyArray<CustomFieldDefinition>
): Result.Result<RecordFields, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(notAnObject())
  const custom = new Map(definitions.filter((d) => d.object === shape.object).map((d) => [d.key, d]))
  const details: Array<ErrorDetail> = shape.required
    .filter((key) => !Object.hasOwn(body, key))
    .map((key) => ({ path: key, message: "is required" }))
  const fields: Record<string, Json> = {}
  for (const [key, value] of Object.entries(body)) {
    // hasOwn, not `in`: `constructor` or `toString` must not pass for a standard field.
    const definition = custom.get(key)
    const check = Object.hasOwn(shape.standard, key)
      ? shape.standard[key]
      : definition !== undefined
      ? customValueCheck(definition)
      : undefined
    if (check === undefined) {
      details.push({ path: key, message: shape.readOnly.includes(key) ? "is read-only" : "is not a known field" })
      continue
    }
    Result.match(check(value), {
      onFailure: (message) => details.push({ path: key, message }),
      onSuccess: (accepted) => {
        fields[key] = accepted
      }
    })
  }
  return Result.succeed({ fields, details })
}

/** The standard keys in catalog order (absent ones as null), then the custom keys in body order. */
export const withAllStandardKeys = (
  fields: Readonly<Record<string, Json>>,
  defaults: ReadonlyArray<readonly [string, Json]>
): JsonObject => {
  const out: Record<string, Json> = {}
  for (const [key, fallback] of defaults) out[key] = fields[key] ?? fallback
  for (const [key, value] of Object.entries(fields)) if (!Object.hasOwn(out, key)) out[key] = value
  return out
}

export const answer = <A>(details: ReadonlyArray<ErrorDetail>, value: A): Result.Result<A, ValidationError> =>
  details.length > 0 ? Result.fail(ValidationError.of(details)) : Result.succeed(value)

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
