import { Result } from "effect"
import type { CustomFieldDefinition } from "../customField/definition.js"
import type { FieldCheck } from "../customField/fieldValues.js"
import { nullable, text } from "../customField/fieldValues.js"
import type { RecordShape } from "../customField/recordFields.js"
import { answer, readRecordFields, withAllStandardKeys } from "../customField/recordFields.js"
import type { ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"
import { contactComputedKeys } from "../query/fields.js"

const EMAIL_MAX = 254
// The WHATWG form-validation pattern, plus a dot in the domain: `a@localhost` is never a CRM contact.
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/

const email: FieldCheck = (value) => {
  if (typeof value !== "string") return Result.fail("must be a string")
  const trimmed = value.trim()
  if (trimmed.length > EMAIL_MAX) return Result.fail(`must be at most ${EMAIL_MAX} characters`)
  return EMAIL.test(trimmed) ? Result.succeed(trimmed) : Result.fail("must be a valid email address")
}

export const CONTACT_TEXT_KEYS = ["first_name", "last_name", "phone", "title", "company_id", "source", "owner_id"] as const
const TEXT_MAX = 1000

const standard: Record<string, FieldCheck> = { email }
for (const key of CONTACT_TEXT_KEYS) standard[key] = nullable(text(TEXT_MAX))

const readOnly = ["id", "created_at", "updated_at", ...contactComputedKeys]

const createShape: RecordShape = { object: "contact", standard, readOnly, required: ["email"] }
const patchShape: RecordShape = { ...createShape, required: [] }

const defaults: ReadonlyArray<readonly [string, null]> = [["email", null], ...CONTACT_TEXT_KEYS.map((k) => [k, null] as const)]

/** Every standard field (absent ones null) and the custom keys the body gave. */
export const parseContactCreate = (
  body: unknown,
  definitions: ReadonlyArray<CustomFieldDefinition>
): Result.Result<JsonObject, ValidationError> =>
  Result.flatMap(
    readRecordFields(body, createShape, definitions),
    ({ details, fields }) => answer(details, withAllStandardKeys(fields, defaults))
  )

/** Only the keys the body gave: a PATCH changes nothing else. */
export const parseContactPatch = (
  body: unknown,
  definitions: ReadonlyArray<CustomFieldDefinition>
): Result.Result<JsonObject, ValidationError> =>
  Result.flatMap(readRecordFields(body, patchShape, definitions), ({ details, fields }) => answer(details, fields))
