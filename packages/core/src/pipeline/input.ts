import { Result } from "effect"
import { trimmedText } from "../field/checks.js"
import { answer, notAnObject } from "../field/recordBody.js"
import type { ErrorDetail, ValidationError } from "../errors.js"
import { isJsonObject } from "../json.js"

export const PIPELINE_NAME_MAX = 200
export const STAGE_NAME_MAX = 200
export const STAGES_MAX = 50

export interface PipelineCreateInput {
  readonly name: string
  readonly stages: ReadonlyArray<{ readonly name: string }>
}

/** A stage without `id` (or with `id: null`) is a new one; the engine gives it an id. */
export interface PipelinePatchInput {
  readonly name?: string
  readonly stages?: ReadonlyArray<{ readonly id: string | null; readonly name: string }>
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
): Array<{ id: string | null; name: string }> | undefined => {
  if (!Array.isArray(value)) {
    details.push({ path: "stages", message: "must be an array" })
    return undefined
  }
  if (value.length === 0) details.push({ path: "stages", message: "must have at least one stage" })
  if (value.length > STAGES_MAX) details.push({ path: "stages", message: `must have at most ${STAGES_MAX} stages` })
  const stages: Array<{ id: string | null; name: string }> = []
  const before = details.length
  value.forEach((stage: unknown, i) => {
    const path = `stages[${i}]`
    if (!isJsonObject(stage)) {
      details.push({ path, message: "must be an object" })
      return
    }
    let id: string | null = null
    let name = ""
    if (!Object.hasOwn(stage, "name")) details.push({ path: `${path}.name`, message: "is required" })
    for (const [key, field] of Object.entries(stage)) {
      if (key === "name") {
        Result.match(trimmedText(1, STAGE_NAME_MAX)(field), {
          onFailure: (message) => details.push({ path: `${path}.name`, message }),
          onSuccess: (accepted) => {
            name = accepted as string
          }
        })
      } else if (key === "id" && withIds) {
        if (field === null || (typeof field === "string" && field.length > 0)) id = field
        else details.push({ path: `${path}.id`, message: "must be a stage id or null" })
      } else {
        details.push(unknownKey(`${path}.${key}`, key, ["id", "position"]))
      }
    }
    stages.push({ id, name })
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
  let stages: ReadonlyArray<{ name: string }> = []
  for (const [key, value] of Object.entries(body)) {
    if (key === "name") name = readName(value, details) ?? ""
    else if (key === "stages") stages = (readStages(value, false, details) ?? []).map((s) => ({ name: s.name }))
    else details.push(unknownKey(key, key, READ_ONLY))
  }
  return answer(details, { name, stages })
}

export const parsePipelinePatch = (body: unknown): Result.Result<PipelinePatchInput, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(notAnObject())
  const details: Array<ErrorDetail> = []
  const input: { name?: string; stages?: ReadonlyArray<{ id: string | null; name: string }> } = {}
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
