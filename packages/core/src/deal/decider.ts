import { Result } from "effect"
import { changedFields } from "../field/changes.js"
import type { Decider } from "../decider.js"
import { RECOVERY_WINDOW_MILLIS } from "../decider.js"
import type { DomainError, ErrorDetail } from "../errors.js"
import { Conflict, NotFound, ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"
import type { PipelineInfo } from "../pipeline/decider.js"
import type { CreateDeal, DealCommand, MoveStage, UpdateDeal } from "./commands.js"
import { patchedCompanyId } from "./companyLink.js"
import { contactIdsOf, patchedContactIds } from "./contactLinks.js"
import type { DealEvent, DealStageChanged } from "./events.js"
import { withDealRules } from "./rules.js"
import { pipelineStageRules } from "./stageRules.js"
import type { DealState } from "./state.js"

type Live = Extract<DealState, { status: "live" }>
type Decision = Result.Result<ReadonlyArray<DealEvent>, DomainError>

const withinRecoveryWindow = (deletedAt: string, at: string): boolean => Date.parse(at) - Date.parse(deletedAt) <= RECOVERY_WINDOW_MILLIS

const notFound = (id: string): Decision => Result.fail(new NotFound({ resource: "deal", id }))

const stringField = (fields: JsonObject, key: string): string => {
  const value = fields[key]
  return typeof value === "string" ? value : ""
}

/** The first stage by position: positions may have gaps after a reorder in an old event. */
export const firstStageOf = (pipeline: PipelineInfo): string | null =>
  pipeline.stages.reduce<PipelineInfo["stages"][number] | null>(
    (first, stage) => (first === null || stage.position < first.position ? stage : first),
    null
  )?.id ?? null

const hasStage = (pipeline: PipelineInfo, stageId: string): boolean => pipeline.stages.some((s) => s.id === stageId)

const foreignStage = (pipeline: PipelineInfo): ErrorDetail => ({
  path: "stage_id",
  message: `is not a stage of pipeline ${pipeline.id}`
})

/** Paths point at the offending element so the client can find it in what it sent. */
const unknownContacts = (fields: JsonObject, unknown: ReadonlyArray<string>): Array<ErrorDetail> => {
  const given = fields["contact_ids"]
  const ids: ReadonlyArray<Json> = Array.isArray(given) ? given : []
  return unknown.map((contactId) => {
    const i = ids.indexOf(contactId)
    return { path: i >= 0 ? `contact_ids[${i}]` : "contact_ids", message: `contact ${contactId} does not exist` }
  })
}

/** A company written must be live. */
const unknownCompany = (companyId: string | null | undefined): Array<ErrorDetail> =>
  companyId === null || companyId === undefined ? [] : [{ path: "company_id", message: `company ${companyId} does not exist` }]

const create = (command: CreateDeal): Decision => {
  const { at, fields, id, pipeline } = command
  const details: Array<ErrorDetail> = []
  let stageId: string | null = null
  if (pipeline === null) {
    details.push({ path: "pipeline_id", message: "does not exist" })
  } else {
    const given = fields["stage_id"]
    stageId = typeof given === "string" ? given : firstStageOf(pipeline)
    if (typeof given === "string" && !hasStage(pipeline, given)) details.push(foreignStage(pipeline))
    if (stageId === null) details.push({ path: "pipeline_id", message: "has no stages" })
  }
  details.push(...unknownContacts(fields, command.unknownContactIds), ...unknownCompany(command.unknownCompanyId))
  if (details.length > 0 || pipeline === null) return Result.fail(ValidationError.of(details))
  return Result.succeed([
    {
      type: "deal.created",
      data: { id, fields: { ...fields, pipeline_id: pipeline.id, stage_id: stageId }, at }
    }
  ])
}

const stageChanged = (
  state: Live,
  to: { pipelineId: string; stageId: string },
  command: { entryId: string; at: string },
  reason: string | null
): DealStageChanged => ({
  type: "deal.stage_changed",
  data: {
    entry_id: command.entryId,
    from_pipeline_id: stringField(state.fields, "pipeline_id"),
    to_pipeline_id: to.pipelineId,
    from_stage_id: stringField(state.fields, "stage_id"),
    to_stage_id: to.stageId,
    reason,
    at: command.at
  }
})

/**
 * Where a patch puts the deal: a given stage (which must belong to the target pipeline), else the
 * new pipeline's first stage when only the pipeline changes, else where it is.
 */
const destination = (command: UpdateDeal, state: Live): Result.Result<{ pipelineId: string; stageId: string }, Array<ErrorDetail>> => {
  const { fields, targetPipeline } = command
  const currentPipeline = stringField(state.fields, "pipeline_id")
  const currentStage = stringField(state.fields, "stage_id")
  const givenPipeline = fields["pipeline_id"]
  const givenStage = fields["stage_id"]
  const pipelineMoves = typeof givenPipeline === "string" && givenPipeline !== currentPipeline
  if (targetPipeline === null) {
    if (pipelineMoves) return Result.fail([{ path: "pipeline_id", message: "does not exist" }])
    if (typeof givenStage === "string" && givenStage !== currentStage) {
      return Result.fail([{ path: "stage_id", message: `is not a stage of pipeline ${currentPipeline}` }])
    }
    return Result.succeed({ pipelineId: currentPipeline, stageId: currentStage })
  }
  if (typeof givenStage === "string") {
    return hasStage(targetPipeline, givenStage)
      ? Result.succeed({ pipelineId: targetPipeline.id, stageId: givenStage })
      : Result.fail([foreignStage(targetPipeline)])
  }
  if (!pipelineMoves) return Result.succeed({ pipelineId: currentPipeline, stageId: currentStage })
  const first = firstStageOf(targetPipeline)
  return first === null
    ? Result.fail([{ path: "pipeline_id", message: "has no stages" }])
    : Result.succeed({ pipelineId: targetPipeline.id, stageId: first })
}

const update = (command: UpdateDeal, state: Live): Decision => {
  const target = destination(command, state)
  const details = [
    ...(Result.isFailure(target) ? target.failure : []),
    ...unknownContacts(command.fields, command.unknownContactIds),
    ...unknownCompany(command.unknownCompanyId)
  ]
  if (details.length > 0 || Result.isFailure(target)) return Result.fail(ValidationError.of(details))
  const { pipeline_id: _p, stage_id: _s, ...patch } = command.fields
  const given = patchedCompanyId(patch, state.fields, command.trashedCompanyId ?? null)
  const rest: JsonObject =
    given["contact_ids"] === undefined
      ? given
      : {
          ...given,
          contact_ids: [...patchedContactIds(contactIdsOf(given), contactIdsOf(state.fields), new Set(command.trashedContactIds ?? []))]
        }
  const changed = changedFields(state.fields, rest)
  const events: Array<DealEvent> = []
  if (Object.keys(changed).length > 0) events.push({ type: "deal.updated", data: { changed, at: command.at } })
  // Last, so that a stage_changed webhook shows the deal with the whole patch applied.
  if (
    target.success.stageId !== stringField(state.fields, "stage_id") ||
    target.success.pipelineId !== stringField(state.fields, "pipeline_id")
  ) {
    events.push(stageChanged(state, target.success, command, null))
  }
  return Result.succeed(events)
}

const move = (command: MoveStage, state: Live): Decision => {
  const { pipeline, stageId } = command
  if (!hasStage(pipeline, stageId)) return Result.fail(ValidationError.of([foreignStage(pipeline)]))
  return stageId === stringField(state.fields, "stage_id")
    ? Result.succeed([])
    : Result.succeed([stageChanged(state, { pipelineId: pipeline.id, stageId }, command, command.reason)])
}

const decide = (command: DealCommand, state: DealState): Decision => {
  const { at, id } = command
  switch (command.type) {
    case "CreateDeal":
      // Ids are fresh from the engine; a clash means a bug or a replayed command, never a user error.
      return state.status === "absent"
        ? create(command)
        : Result.fail(new Conflict({ message: `deal ${id} already exists`, details: [{ path: "id", message: "already exists", id }] }))
    case "UpdateDeal":
      return state.status === "live" ? update(command, state) : notFound(id)
    case "MoveStage":
      return state.status === "live" ? move(command, state) : notFound(id)
    case "DeleteDeal":
      return state.status === "live" ? Result.succeed([{ type: "deal.deleted", data: { at } }]) : notFound(id)
    case "RestoreDeal":
      return state.status === "deleted" && withinRecoveryWindow(state.deletedAt, at)
        ? Result.succeed([{ type: "deal.restored", data: { at } }])
        : notFound(id)
    case "PurgeDeal":
      if (state.status === "absent" || state.status === "purged") return notFound(id)
      return state.status === "deleted" && !withinRecoveryWindow(state.deletedAt, at)
        ? Result.succeed([{ type: "deal.purged", data: { at } }])
        : Result.fail(
            new Conflict({
              message: `deal ${id} is still recoverable`,
              details: [{ path: "", message: "only deals deleted more than 30 days ago can be purged", id }]
            })
          )
  }
}

const evolve = (state: DealState, event: DealEvent): DealState => {
  switch (event.type) {
    case "deal.created":
      return { status: "live", fields: event.data.fields }
    case "deal.updated":
      return state.status === "live" ? { status: "live", fields: { ...state.fields, ...event.data.changed } } : state
    case "deal.stage_changed":
      return state.status === "live"
        ? { status: "live", fields: { ...state.fields, pipeline_id: event.data.to_pipeline_id, stage_id: event.data.to_stage_id } }
        : state
    case "deal.deleted":
      return state.status === "live" ? { status: "deleted", fields: state.fields, deletedAt: event.data.at } : state
    case "deal.restored":
      return state.status === "deleted" ? { status: "live", fields: state.fields } : state
    case "deal.purged":
      return { status: "purged" }
  }
}

/**
 * The deal decider: its own checks, then the pipeline's stage rules (stageRules.ts), which a
 * pipeline without rules never refuses. Embedders add rules of their own with withDealRules.
 */
export const dealDecider: Decider<DealCommand, DealEvent, DealState> = withDealRules(
  { initialState: { status: "absent" }, evolve, decide },
  [pipelineStageRules]
)
