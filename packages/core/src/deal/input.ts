import { Result } from "effect"
import type { CustomFieldDefinition } from "../customField/definition.js"
import type { FieldCheck } from "../customField/fieldValues.js"
import { date, finiteNumber, nullable, oneOf, text, trimmedText } from "../customField/fieldValues.js"
import type { RecordShape } from "../customField/recordFields.js"
import { answer, notAnObject, readRecordFields, withAllStandardKeys } from "../customField/recordFields.js"
import type { ErrorDetail, ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"
import { isJsonObject } from "../json.js"
import { dealComputedKeys, dealStatuses } from "../query/fields.js"

const TEXT_MAX = 1000
export const CONTACT_IDS_MAX = 100

const CURRENCY = /^[A-Z]{3}$/
// Read once: the runtime's ICU list of ISO 4217 codes, so `XYZ` is refused and not just shaped right.
const knownCurrencies: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"))

const currency: FieldCheck = (value) =>
  typeof value === "string" && CURRENCY.test(value) && knownCurrencies.has(value)
    ? Result.succeed(value)
    : Result.fail("must be an ISO 4217 currency code of three uppercase letters")

const id: FieldCheck = (value) =>
  typeof value === "string" && value.length > 0 && value.length <= TEXT_MAX
    ? Result.succeed(value)
    : Result.fail("must be a non-empty string")

/** Element problems are reported for the whole key; repeats are dropped, first occurrence kept. */
const contactIds: FieldCheck = (value) => {
  if (!Array.isArray(value)) return Result.fail("must be an array of contact ids")
  const bad = value.findIndex((item) => typeof item !== "string" || item.length === 0 || item.length > TEXT_MAX)
  if (bad >= 0) return Result.fail(`must hold only contact ids (element ${bad} is not one)`)
  const unique = [...new Set(value as ReadonlyArray<string>)]
  return unique.length > CONTACT_IDS_MAX
    ? Result.fail(`must hold at most ${CONTACT_IDS_MAX} contact ids`)
    : Result.succeed(unique)
}

const common: Record<string, FieldCheck> = {
  name: trimmedText(1, TEXT_MAX),
  pipeline_id: id,
  value: nullable(finiteNumber),
  currency: nullable(currency),
  expected_close_date: nullable(date),
  owner_id: nullable(text(TEXT_MAX)),
  contact_ids: contactIds,
  status: oneOf(dealStatuses)
}

const readOnly = ["id", "created_at", "updated_at", ...dealComputedKeys]

// On creation a null stage_id means "the default stage"; on a patch the deal must be somewhere.
const createShape: RecordShape = {
  object: "deal",
  standard: { ...common, stage_id: nullable(id) },
  readOnly,
  required: ["name", "pipeline_id"]
}
const patchShape: RecordShape = { object: "deal", standard: { ...common, stage_id: id }, readOnly, required: [] }

const defaults: ReadonlyArray<readonly [string, Json]> = [
  ["name", null],
  ["pipeline_id", null],
  ["stage_id", null],
  ["value", null],
  ["currency", null],
  ["expected_close_date", null],
  ["owner_id", null],
  ["contact_ids", []],
  ["status", "open"]
]

/** Every standard field (stage_id null until the decider picks the pipeline's first stage). */
export const parseDealCreate = (
  body: unknown,
  definitions: ReadonlyArray<CustomFieldDefinition>
): Result.Result<JsonObject, ValidationError> =>
  Result.flatMap(
    readRecordFields(body, createShape, definitions),
    ({ details, fields }) => answer(details, withAllStandardKeys(fields, defaults))
  )

export const parseDealPatch = (
  body: unknown,
  definitions: ReadonlyArray<CustomFieldDefinition>
): Result.Result<JsonObject, ValidationError> =>
  Result.flatMap(readRecordFields(body, patchShape, definitions), ({ details, fields }) => answer(details, fields))

export interface StageMoveInput {
  readonly stage_id: string
  readonly reason: string | null
}

/** `PUT /v1/deals/:id/stage`: `{stage_id, reason?}`. */
export const parseStageMove = (body: unknown): Result.Result<StageMoveInput, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(notAnObject())
  const details: Array<ErrorDetail> = []
  if (!Object.hasOwn(body, "stage_id")) details.push({ path: "stage_id", message: "is required" })
  let stageId = ""
  let reason: string | null = null
  for (const [key, value] of Object.entries(body)) {
    const checked = key === "stage_id" ? id(value) : key === "reason" ? nullable(text(TEXT_MAX))(value) : undefined
    if (checked === undefined) {
      details.push({ path: key, message: "is not a known field" })
    } else if (Result.isFailure(checked)) {
      details.push({ path: key, message: checked.failure })
    } else if (key === "stage_id") {
      stageId = checked.success as string
    } else {
      reason = checked.success as string | null
    }
  }
  return answer(details, { stage_id: stageId, reason })
}
