import { Result } from "effect"
import type { ErrorDetail, ValidationError } from "../errors.js"
import { id, nullable, text } from "../field/checks.js"
import { dealFields, LOST_REASON_MAX } from "../field/dealFields.js"
import { answer, notAnObject, recordCreateParser, recordPatchParser } from "../field/recordBody.js"
import { STANDARD_TEXT_MAX } from "../field/table.js"
import { isJsonObject } from "../json.js"

/** Every standard field (stage_id null until the decider picks the pipeline's first stage). */
export const parseDealCreate = recordCreateParser(dealFields)

export const parseDealPatch = recordPatchParser(dealFields)

export interface StageMoveInput {
  readonly stage_id: string
  readonly reason: string | null
  /** Left out: the move's reason is the lost reason, when the move loses the deal. */
  readonly lost_reason?: string | null
}

const stageIdCheck = id(STANDARD_TEXT_MAX)
const reasonCheck = nullable(text(STANDARD_TEXT_MAX))
const lostReasonCheck = nullable(text(LOST_REASON_MAX))

/** `PUT /v1/deals/:id/stage`: `{stage_id, reason?, lost_reason?}`. */
export const parseStageMove = (body: unknown): Result.Result<StageMoveInput, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(notAnObject())
  const details: Array<ErrorDetail> = []
  if (!Object.hasOwn(body, "stage_id")) details.push({ path: "stage_id", message: "is required" })
  let stageId = ""
  let reason: string | null = null
  let lostReason: { lost_reason?: string | null } = {}
  for (const [key, value] of Object.entries(body)) {
    const checked =
      key === "stage_id"
        ? stageIdCheck(value)
        : key === "reason"
          ? reasonCheck(value)
          : key === "lost_reason"
            ? lostReasonCheck(value)
            : undefined
    if (checked === undefined) {
      details.push({ path: key, message: "is not a known field" })
    } else if (Result.isFailure(checked)) {
      details.push({ path: key, message: checked.failure })
    } else if (key === "stage_id") {
      stageId = checked.success as string
    } else if (key === "reason") {
      reason = checked.success as string | null
    } else {
      lostReason = { lost_reason: checked.success as string | null }
    }
  }
  return answer(details, { stage_id: stageId, reason, ...lostReason })
}
