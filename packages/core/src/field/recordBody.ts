import { Result } from "effect"
import type { ErrorDetail } from "../errors.js"
import { ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"
import { isJsonObject } from "../json.js"
import type { FieldCheck } from "./checks.js"
import { nullable } from "./checks.js"
import type { CustomFieldDefinition, CustomFieldObject } from "./custom.js"
import { customValueCheck } from "./custom.js"
import type { RecordFields, StandardField } from "./table.js"
import { reservedKeysOf, writableOf } from "./table.js"

/** What a contact or deal body may carry besides the workspace's custom fields. */
export interface RecordShape {
  readonly object: CustomFieldObject
  readonly standard: Readonly<Record<string, FieldCheck>>
  /** Keys the service sets itself: named as read-only rather than unknown, to help the client. */
  readonly readOnly: ReadonlyArray<string>
  readonly required: ReadonlyArray<string>
}

export interface ReadFields {
  /** The accepted keys, in body order. */
  readonly fields: Record<string, Json>
  /** Every offending key, the missing required ones first. */
  readonly details: ReadonlyArray<ErrorDetail>
}

export const notAnObject = (): ValidationError => ValidationError.at("", "body must be a JSON object")

export const answer = <A>(details: ReadonlyArray<ErrorDetail>, value: A): Result.Result<A, ValidationError> =>
  details.length > 0 ? Result.fail(ValidationError.of(details)) : Result.succeed(value)

/**
 * Reads a record body key by key against the standard fields and the custom field definitions of
 * its object. Only a body that is not an object fails here; per-key problems are collected so the
 * caller can add its own before answering with all of them.
 */
export const readRecordFields = (
  body: unknown,
  shape: RecordShape,
  definitions: ReadonlyArray<CustomFieldDefinition>
): Result.Result<ReadFields, ValidationError> => {
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

/** The standard keys in catalog order (absent ones as given), then the custom keys in body order. */
export const withAllStandardKeys = (
  fields: Readonly<Record<string, Json>>,
  defaults: ReadonlyArray<readonly [string, Json]>
): JsonObject => {
  const out: Record<string, Json> = {}
  for (const [key, fallback] of defaults) out[key] = fields[key] ?? fallback
  for (const [key, value] of Object.entries(fields)) if (!Object.hasOwn(out, key)) out[key] = value
  return out
}

/**
 * On creation null means what leaving the field out means, where that is null; on a patch it
 * clears the field, where the field may be empty.
 */
const acceptsNull = (field: StandardField, on: "create" | "patch"): boolean =>
  field.nullable || (on === "create" && !field.required && field.absent === null)

/** The shape of a create or a patch body of a record type, read off its field table. */
export const recordShape = (record: RecordFields, on: "create" | "patch"): RecordShape => {
  const writable = writableOf(record)
  return {
    object: record.object,
    standard: Object.fromEntries(writable.map((f) => [f.name, acceptsNull(f, on) ? nullable(f.check) : f.check])),
    readOnly: reservedKeysOf(record),
    required: on === "create" ? writable.filter((f) => f.required).map((f) => f.name) : []
  }
}

export type RecordParser = (body: unknown, definitions: ReadonlyArray<CustomFieldDefinition>) => Result.Result<JsonObject, ValidationError>

/** Every standard field (absent ones as the table says) and the custom keys the body gave. */
export const recordCreateParser = (record: RecordFields): RecordParser => {
  const shape = recordShape(record, "create")
  const defaults = writableOf(record).map((f) => [f.name, f.absent] as const)
  return (body, definitions) =>
    Result.flatMap(readRecordFields(body, shape, definitions), ({ details, fields }) =>
      answer(details, withAllStandardKeys(fields, defaults))
    )
}

/** Only the keys the body gave: a patch changes nothing else. */
export const recordPatchParser = (record: RecordFields): RecordParser => {
  const shape = recordShape(record, "patch")
  return (body, definitions) => Result.flatMap(readRecordFields(body, shape, definitions), ({ details, fields }) => answer(details, fields))
}
