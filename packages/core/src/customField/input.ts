import { Result } from "effect"
import type { ErrorDetail } from "../errors.js"
import { ValidationError } from "../errors.js"
import { trimmedText } from "../field/checks.js"
import { answer, notAnObject } from "../field/recordBody.js"
import { recordFields } from "../field/records.js"
import { reservedKeysOf } from "../field/table.js"
import { isJsonObject } from "../json.js"
import { type CustomFieldDefinition, CustomFieldObject, CustomFieldType } from "./definition.js"

export type CustomFieldInput = Omit<CustomFieldDefinition, "created_at">

export const CUSTOM_FIELD_KEY = /^[a-z][a-z0-9_]{0,62}$/
export const CUSTOM_FIELD_TYPES: ReadonlyArray<CustomFieldType> = CustomFieldType.literals
export const CUSTOM_FIELD_LABEL_MAX = 200

const OBJECTS: ReadonlyArray<CustomFieldObject> = CustomFieldObject.literals
const KNOWN_KEYS = ["object", "key", "label", "type", "options"]

const readOptions = (value: unknown, details: Array<ErrorDetail>): ReadonlyArray<string> | null => {
  if (!Array.isArray(value) || value.length === 0) {
    details.push({ path: "options", message: "must be a non-empty array of strings" })
    return null
  }
  const seen = new Set<string>()
  value.forEach((option: unknown, i) => {
    if (typeof option !== "string" || option.length === 0) {
      details.push({ path: `options[${i}]`, message: "must be a non-empty string" })
    } else if (seen.has(option)) {
      details.push({ path: `options[${i}]`, message: "is listed more than once" })
    } else {
      seen.add(option)
    }
  })
  return [...seen]
}

/** `POST /v1/custom-fields`: `{object, key, label, type, options}`; options only for enums. */
export const parseCustomFieldCreate = (body: unknown): Result.Result<CustomFieldInput, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(notAnObject())
  const details: Array<ErrorDetail> = []
  for (const key of ["object", "key", "label", "type"]) {
    if (!Object.hasOwn(body, key)) details.push({ path: key, message: "is required" })
  }
  for (const key of Object.keys(body)) {
    if (!KNOWN_KEYS.includes(key)) {
      details.push({ path: key, message: key === "created_at" ? "is read-only" : "is not a known field" })
    }
  }

  const object = OBJECTS.find((o) => o === body["object"]) ?? null
  if (object === null && Object.hasOwn(body, "object")) details.push({ path: "object", message: `must be one of ${OBJECTS.join(", ")}` })

  const key = typeof body["key"] === "string" && CUSTOM_FIELD_KEY.test(body["key"]) ? body["key"] : null
  if (key === null && Object.hasOwn(body, "key")) {
    details.push({ path: "key", message: "must match ^[a-z][a-z0-9_]{0,62}$" })
  } else if (key !== null && object !== null && reservedKeysOf(recordFields[object]).includes(key)) {
    // Custom values sit next to standard ones in the record, so a key may not take a standard one's name.
    details.push({ path: "key", message: `is a standard field of ${object}` })
  }

  let label = ""
  if (Object.hasOwn(body, "label")) {
    Result.match(trimmedText(1, CUSTOM_FIELD_LABEL_MAX)(body["label"]), {
      onFailure: (message) => details.push({ path: "label", message }),
      onSuccess: (accepted) => {
        label = accepted as string
      }
    })
  }

  const type = CUSTOM_FIELD_TYPES.find((t) => t === body["type"]) ?? null
  if (type === null && Object.hasOwn(body, "type")) {
    details.push({ path: "type", message: `must be one of ${CUSTOM_FIELD_TYPES.join(", ")}` })
  }

  let options: ReadonlyArray<string> | null = null
  const givenOptions = body["options"] ?? null
  if (type === "enum") {
    options = readOptions(givenOptions, details)
  } else if (givenOptions !== null && type !== null) {
    details.push({ path: "options", message: "is only allowed for enum fields" })
  }

  // A null object, key or type always left a detail behind (missing or malformed).
  if (object === null || key === null || type === null) return Result.fail(ValidationError.of(details))
  return answer(details, { object, key, label, type, options })
}
