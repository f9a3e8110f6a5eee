import { Result } from "effect"
import type { ErrorDetail } from "../errors.js"
import type { DealStatus } from "../field/dealFields.js"
import type { JsonObject } from "../json.js"
import type { PipelineInfo } from "../pipeline/decider.js"
import type { Stage, StageOutcome } from "../pipeline/events.js"

/**
 * How a deal closes, as every CRM closes one: its status follows its stage. Entering a stage whose
 * outcome is won or lost closes the deal so (its `closed_at` the move's time); leaving such a stage
 * for an open one reopens it; a move between open stages leaves the status as it is, so in a
 * pipeline without closing stages the status is set by hand, as Pipedrive's is. Outcomes are read
 * off the pipeline as it is now. These are the pure rules; the decider applies them.
 */

/** The fields closing sets together. */
export interface Closing {
  readonly status: DealStatus
  readonly closed_at: string | null
  readonly lost_reason: string | null
}

const isStatus = (value: unknown): value is DealStatus => value === "open" || value === "won" || value === "lost"

/** A deal's closing as its fields hold it (a deal written before closing existed has no closed_at). */
export const closingOf = (fields: JsonObject): Closing => {
  const closedAt = fields["closed_at"]
  const lostReason = fields["lost_reason"]
  return {
    status: isStatus(fields["status"]) ? fields["status"] : "open",
    closed_at: typeof closedAt === "string" ? closedAt : null,
    lost_reason: typeof lostReason === "string" ? lostReason : null
  }
}

export const sameClosing = (a: Closing, b: Closing): boolean =>
  a.status === b.status && a.closed_at === b.closed_at && a.lost_reason === b.lost_reason

export const stageOf = (pipeline: PipelineInfo | null, stageId: string): Stage | undefined => pipeline?.stages.find((s) => s.id === stageId)

/** The stage's outcome: null for an open stage (or one the pipeline does not have). */
export const outcomeOf = (pipeline: PipelineInfo | null, stageId: string): StageOutcome | null =>
  stageOf(pipeline, stageId)?.outcome ?? null

/** The pipeline's first stage (by position) with this outcome, null for the first open one. */
export const firstStageWith = (pipeline: PipelineInfo, outcome: StageOutcome | null): string | null =>
  [...pipeline.stages].sort((a, b) => a.position - b.position).find((s) => (s.outcome ?? null) === outcome)?.id ?? null

/**
 * The closing after a move from a stage of outcome `from` into one of outcome `to` at `at`.
 * `lostReason` is what the write gives as the reason a deal is lost (the body's `lost_reason`, else
 * the move's `reason`), undefined when it gives none: then a deal lost already keeps its reason.
 */
export const closingAfterMove = (
  current: Closing,
  from: StageOutcome | null,
  to: StageOutcome | null,
  at: string,
  lostReason: string | null | undefined
): Closing => {
  if (to === "won") return { status: "won", closed_at: at, lost_reason: null }
  if (to === "lost") {
    const kept = current.status === "lost" ? current.lost_reason : null
    return { status: "lost", closed_at: at, lost_reason: lostReason === undefined ? kept : lostReason }
  }
  return from === null ? current : { status: "open", closed_at: null, lost_reason: null }
}

/** A status set where no stage closes the deal (a pipeline without one): only the closing fields change. */
export const closingWithStatus = (current: Closing, status: DealStatus, at: string, lostReason: string | null | undefined): Closing => {
  if (status === current.status) return status === "lost" && lostReason !== undefined ? { ...current, lost_reason: lostReason } : current
  if (status === "open") return { status, closed_at: null, lost_reason: null }
  return { status, closed_at: at, lost_reason: status === "lost" ? (lostReason ?? null) : null }
}

const contradicts = (message: string): ErrorDetail => ({ path: "status", message })

/**
 * A body that names both a stage and a status must not contradict itself: a closing stage's outcome
 * is the deal's status, and a status the pipeline has a closing stage for is had by entering it.
 */
export const statusAgainstStage = (pipeline: PipelineInfo, stageId: string, status: DealStatus): ErrorDetail | null => {
  const stage = stageOf(pipeline, stageId)
  const outcome = stage?.outcome ?? null
  if (outcome !== null) {
    return status === outcome ? null : contradicts(`contradicts stage_id: a deal in stage "${stage?.name}" is ${outcome}`)
  }
  if (status === "open") return null
  const closing = firstStageWith(pipeline, status)
  return closing === null
    ? null
    : contradicts(
        `contradicts stage_id: a ${status} deal of pipeline ${pipeline.id} is in its ${status} stage ${closing}, not in an open one`
      )
}

/**
 * Where a status given without a stage puts a deal that would otherwise be in `stageId`: won or
 * lost, the pipeline's first stage of that outcome (where it is, when its stage has it already);
 * open, out of a closing stage back into `reopenTo` (the open stage it was in before it closed) when
 * that is still an open stage of the pipeline, else the pipeline's first open stage. Where no stage
 * closes or opens it, it stays: the status alone changes.
 */
export const stageForStatus = (
  pipeline: PipelineInfo,
  stageId: string,
  status: DealStatus,
  reopenTo: string | null
): Result.Result<string, ErrorDetail> => {
  const outcome = outcomeOf(pipeline, stageId)
  if (status === "open") {
    if (outcome === null) return Result.succeed(stageId)
    const back = reopenTo !== null && stageOf(pipeline, reopenTo) !== undefined && outcomeOf(pipeline, reopenTo) === null ? reopenTo : null
    const open = back ?? firstStageWith(pipeline, null)
    return open === null ? Result.fail(contradicts(`cannot be open: pipeline ${pipeline.id} has no open stage`)) : Result.succeed(open)
  }
  if (outcome === status) return Result.succeed(stageId)
  const closing = firstStageWith(pipeline, status)
  if (closing !== null) return Result.succeed(closing)
  return outcome === null
    ? Result.succeed(stageId)
    : Result.fail(
        contradicts(
          `cannot be ${status} in stage "${stageOf(pipeline, stageId)?.name}", which is ${outcome}, and pipeline ${pipeline.id} has no ${status} stage`
        )
      )
}
