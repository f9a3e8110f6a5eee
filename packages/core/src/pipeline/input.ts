import { Result } from "effect"
import { trimmedText } from "../field/checks.js"
import { answer, notAnObject } from "../field/recordBody.js"
import type { ErrorDetail, ValidationError } from "../errors.js"
import { CUSTOM_FIELD_KEY } from "../customField/input.js"
import { dealFields } from "../field/dealFields.js"
import { reservedKeysOf } from "../field/table.js"
import { isJsonObject } from "../json.js"
import { type StageOutcome, stageOutcomes } from "./events.js"

export const PIPELINE_NAME_MAX = 200
export const STAGE_NAME_MAX = 200
export const STAGES_MAX = 50

/** A stage's outcome, probability and rules as given; left out, a PATCH keeps the stage's current ones. */
export interface StageRulesInput {
  readonly outcome?: StageOutcome | null
  readonly probability?: number | null
  readonly required_fields?: ReadonlyArray<string>
  readonly next_stage_ids?: ReadonlyArray<string> | null
}

export interface PipelineCreateInput {
  readonly name: string
  readonly stages: ReadonlyArray<{ readonly name: string } & StageRulesInput>
}

/** A stage without `id` (or with `id: null`) is a new one; the engine gives it an id. */
export interface PipelinePatchInput {
  readonly name?: string
  readonly stages?: ReadonlyArray<{ readonly id: string | null; readonly name: string } & StageRulesInput>
}

export const REQUIRED_FIELDS_MAX = 20

/** The deal fields a stage may require: the standard ones a deal may leave empty, and custom keys. */
export const REQUIRABLE_STANDARD_FIELDS = ["value", "currency", "expected_close_date", "owner_id", "contact_ids"] as const
const reservedDealKeys = reservedKeysOf(dealFields)

const readRequiredFields = (value: unknown, path: string, details: Array<ErrorDetail>): ReadonlyArray<string> | undefined => {
  if (!Array.isArray(value)) {
    details.push({ path, message: "must be an array of deal field names" })
    return undefined
  }
  if (value.length > REQUIRED_FIELDS_MAX) details.push({ path, message: `must name at most ${REQUIRED_FIELDS_MAX} fields` })
  const before = details.length
  value.forEach((field: unknown, i) => {
    const at = `${path}[${i}]`
    if (typeof field !== "string") details.push({ path: at, message: "must be a deal field name" })
    else if (value.indexOf(field) !== i) details.push({ path: at, message: "is listed more than once" })
    else if ((REQUIRABLE_STANDARD_FIELDS as ReadonlyArray<string>).includes(field)) return
    else if (reservedDealKeys.includes(field)) details.push({ path: at, message: "is a deal field that always has a value" })
    else if (!CUSTOM_FIELD_KEY.test(field))
      details.push({ path: at, message: `must be ${REQUIRABLE_STANDARD_FIELDS.join(", ")} or a custom field key` })
  })
  return details.length === before ? (value as ReadonlyArray<string>) : undefined
}

const readNextStages = (value: unknown, path: string, details: Array<ErrorDetail>): ReadonlyArray<string> | null | undefined => {
  if (value === null) return null
  if (!Array.isArray(value) || value.length > STAGES_MAX) {
    details.push({ path, message: `must be null or an array of at most ${STAGES_MAX} stage ids` })
    return undefined
  }
  const before = details.length
  value.forEach((id: unknown, i) => {
    if (typeof id !== "string" || id.length === 0) details.push({ path: `${path}[${i}]`, message: "must be a stage id" })
    else if (value.indexOf(id) !== i) details.push({ path: `${path}[${i}]`, message: "is listed more than once" })
  })
  return details.length === before ? (value as ReadonlyArray<string>) : undefined
}

const readOutcome = (value: unknown, path: string, details: Array<ErrorDetail>): StageOutcome | null | undefined => {
  if (value === null || (stageOutcomes as ReadonlyArray<unknown>).includes(value)) return value as StageOutcome | null
  details.push({ path, message: `must be null (an open stage) or one of ${stageOutcomes.join(", ")}` })
  return undefined
}

const readProbability = (value: unknown, path: string, details: Array<ErrorDetail>): number | null | undefined => {
  if (value === null || (typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1)) return value as number | null
  details.push({ path, message: "must be null or a number from 0 to 1" })
  return undefined
}

const READ_ONLY = ["id", "created_at", "updated_at"]

const unknownKey = (path: string, key: string, readOnly: ReadonlyArray<string>): ErrorDetail => ({
  path,
  message: readOnly.includes(key) ? "is read-only" : "is not a known field"
})

const readName = (value: unknown, details: Array<ErrorDetail>): string | undefined =>
  Result.match(trimmedText(1, PIPELINE_NAME_MAX)(value), {
    onFailure: (message) => {
      details.push({ path: "name", message })
      return undefined
    },
    onSuccess: (name) => name as string
  })

/**
 * Reads the stage list; `withIds` allows `id` on each stage (PATCH). `position` is refused: the
 * order of the list is the order of the stages.
 */
const readStages = (
  value: unknown,
  withIds: boolean,
  details: Array<ErrorDetail>
): Array<{ id: string | null; name: string } & StageRulesInput> | undefined => {
  if (!Array.isArray(value)) {
    details.push({ path: "stages", message: "must be an array" })
    return undefined
  }
  if (value.length === 0) details.push({ path: "stages", message: "must have at least one stage" })
  if (value.length > STAGES_MAX) details.push({ path: "stages", message: `must have at most ${STAGES_MAX} stages` })
  const stages: Array<{ id: string | null; name: string } & StageRulesInput> = []
  const before = details.length
  value.forEach((stage: unknown, i) => {
    const path = `stages[${i}]`
    if (!isJsonObject(stage)) {
      details.push({ path, message: "must be an object" })
      return
    }
    let id: string | null = null
    let name = ""
    const rules: {
      outcome?: StageOutcome | null
      probability?: number | null
      required_fields?: ReadonlyArray<string>
      next_stage_ids?: ReadonlyArray<string> | null
    } = {}
    if (!Object.hasOwn(stage, "name")) details.push({ path: `${path}.name`, message: "is required" })
    for (const [key, field] of Object.entries(stage)) {
      if (key === "name") {
        Result.match(trimmedText(1, STAGE_NAME_MAX)(field), {
          onFailure: (message) => details.push({ path: `${path}.name`, message }),
          onSuccess: (accepted) => {
            name = accepted as string
          }
        })
      } else if (key === "outcome") {
        const outcome = readOutcome(field, `${path}.outcome`, details)
        if (outcome !== undefined) rules.outcome = outcome
      } else if (key === "probability") {
        const probability = readProbability(field, `${path}.probability`, details)
        if (probability !== undefined) rules.probability = probability
      } else if (key === "required_fields") {
        const required = readRequiredFields(field, `${path}.required_fields`, details)
        if (required !== undefined) rules.required_fields = required
      } else if (key === "next_stage_ids" && withIds) {
        const next = readNextStages(field, `${path}.next_stage_ids`, details)
        if (next !== undefined) rules.next_stage_ids = next
      } else if (key === "next_stage_ids") {
        // Stage ids are made when the pipeline is: a new pipeline's stages can name none yet.
        details.push({
          path: `${path}.next_stage_ids`,
          message: "names stage ids, which a new pipeline's stages do not have yet: set it with PATCH"
        })
      } else if (key === "id" && withIds) {
        if (field === null || (typeof field === "string" && field.length > 0)) id = field
        else details.push({ path: `${path}.id`, message: "must be a stage id or null" })
      } else {
        details.push(unknownKey(`${path}.${key}`, key, ["id", "position"]))
      }
    }
    stages.push({ id, name, ...rules })
  })
  return details.length === before ? stages : undefined
}

export const parsePipelineCreate = (body: unknown): Result.Result<PipelineCreateInput, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(notAnObject())
  const details: Array<ErrorDetail> = []
  for (const key of ["name", "stages"]) {
    if (!Object.hasOwn(body, key)) details.push({ path: key, message: "is required" })
  }
  let name = ""
  let stages: PipelineCreateInput["stages"] = []
  for (const [key, value] of Object.entries(body)) {
    if (key === "name") name = readName(value, details) ?? ""
    else if (key === "stages") stages = (readStages(value, false, details) ?? []).map(({ id: _, ...stage }) => stage)
    else details.push(unknownKey(key, key, READ_ONLY))
  }
  return answer(details, { name, stages })
}

export const parsePipelinePatch = (body: unknown): Result.Result<PipelinePatchInput, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(notAnObject())
  const details: Array<ErrorDetail> = []
  const input: { name?: string; stages?: PipelinePatchInput["stages"] } = {}
  for (const [key, value] of Object.entries(body)) {
    if (key === "name") {
      const name = readName(value, details)
      if (name !== undefined) input.name = name
    } else if (key === "stages") {
      const stages = readStages(value, true, details)
      if (stages !== undefined) input.stages = stages
    } else details.push(unknownKey(key, key, READ_ONLY))
  }
  return answer(details, input)
}
