import { Result } from "effect"
import { changedFields } from "../field/changes.js"
import type { Decider } from "../decider.js"
import { RECOVERY_WINDOW_MILLIS } from "../decider.js"
import type { DomainError, ErrorDetail } from "../errors.js"
import { Conflict, NotFound, ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"
import type { PipelineInfo } from "../pipeline/decider.js"
import type { DealStatus } from "../field/dealFields.js"
import {
  type Closing,
  closingAfterMove,
  closingOf,
  closingWithStatus,
  outcomeOf,
  sameClosing,
  stageForStatus,
  statusAgainstStage
} from "./closing.js"
import type { CreateDeal, DealCommand, MoveStage, UpdateDeal } from "./commands.js"
import { patchedCompanyId } from "./companyLink.js"
import { withoutContact } from "../record/links.js"
import { contactIdsOf, patchedContactIds } from "./contactLinks.js"
import type { DealEvent, DealStageChanged } from "./events.js"
import { movedFields } from "./projection.js"
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

/** What a body gives as the deal's status (null or left out: let the stage decide). */
const givenStatus = (fields: JsonObject): DealStatus | null => {
  const status = fields["status"]
  return status === "open" || status === "won" || status === "lost" ? status : null
}

/** `lost_reason` only ever belongs to a lost deal. */
const lostReasonOutOfPlace = (fields: JsonObject, after: Closing): Array<ErrorDetail> =>
  typeof fields["lost_reason"] === "string" && after.status !== "lost"
    ? [{ path: "lost_reason", message: "may be set only on a lost deal (or with the write that loses it)" }]
    : []

/** The body's lost_reason, undefined when it gives none. */
const lostReasonGiven = (fields: JsonObject): string | null | undefined => {
  if (!Object.hasOwn(fields, "lost_reason")) return undefined
  const reason = fields["lost_reason"]
  return typeof reason === "string" ? reason : null
}

const create = (command: CreateDeal): Decision => {
  const { at, fields, id, pipeline } = command
  const details: Array<ErrorDetail> = []
  let stageId: string | null = null
  const status = givenStatus(fields)
  if (pipeline === null) {
    details.push({ path: "pipeline_id", message: "does not exist" })
  } else {
    const given = fields["stage_id"]
    if (typeof given === "string") {
      stageId = given
      const contradiction = status === null ? null : statusAgainstStage(pipeline, given, status)
      if (!hasStage(pipeline, given)) details.push(foreignStage(pipeline))
      else if (contradiction !== null) details.push(contradiction)
    } else {
      // A status without a stage: the first stage that has it, as a PATCH of the status would move it.
      const first = firstStageOf(pipeline)
      const placed = first === null || status === null ? Result.succeed(first) : stageForStatus(pipeline, first, status, null)
      if (Result.isFailure(placed)) details.push(placed.failure)
      else stageId = placed.success
    }
    if (stageId === null && details.length === 0) details.push({ path: "pipeline_id", message: "has no stages" })
  }
  const opened: Closing = { status: "open", closed_at: null, lost_reason: null }
  const outcome = pipeline === null || stageId === null ? null : outcomeOf(pipeline, stageId)
  const closing =
    outcome !== null
      ? closingAfterMove(opened, null, outcome, at, lostReasonGiven(fields))
      : closingWithStatus(opened, status ?? "open", at, lostReasonGiven(fields))
  details.push(...lostReasonOutOfPlace(fields, closing))
  details.push(...unknownContacts(fields, command.unknownContactIds), ...unknownCompany(command.unknownCompanyId))
  if (details.length > 0 || pipeline === null) return Result.fail(ValidationError.of(details))
  return Result.succeed([
    {
      type: "deal.created",
      data: { id, fields: { ...fields, pipeline_id: pipeline.id, stage_id: stageId, ...closing }, at }
    }
  ])
}

const stageChanged = (
  state: Live,
  to: { pipelineId: string; stageId: string },
  command: { entryId: string; at: string },
  reason: string | null,
  closing: Closing
): DealStageChanged => ({
  type: "deal.stage_changed",
  data: {
    entry_id: command.entryId,
    from_pipeline_id: stringField(state.fields, "pipeline_id"),
    to_pipeline_id: to.pipelineId,
    from_stage_id: stringField(state.fields, "stage_id"),
    to_stage_id: to.stageId,
    reason,
    from_status: closingOf(state.fields).status,
    to_status: closing.status,
    // The rest of the closing only when the move changes it: most moves are between open stages.
    ...(sameClosing(closing, closingOf(state.fields)) ? {} : { closed_at: closing.closed_at, lost_reason: closing.lost_reason }),
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

/**
 * Where a patch puts the deal and how it leaves it closed: `destination`'s stage, unless a status
 * given without a stage moves it (closing.ts's stageForStatus); a status given with a stage must
 * agree with it. The closing follows the move; where no stage decides it, the given status does.
 */
const closingOfPatch = (
  command: UpdateDeal,
  state: Live,
  target: { pipelineId: string; stageId: string }
): Result.Result<{ readonly to: { pipelineId: string; stageId: string }; readonly closing: Closing }, Array<ErrorDetail>> => {
  const { at, fields, targetPipeline } = command
  const status = givenStatus(fields)
  const current = closingOf(state.fields)
  const lostReason = lostReasonGiven(fields)
  let to = target
  if (targetPipeline !== null && status !== null) {
    if (typeof fields["stage_id"] === "string") {
      const contradiction = statusAgainstStage(targetPipeline, target.stageId, status)
      if (contradiction !== null) return Result.fail([contradiction])
    } else {
      const placed = stageForStatus(targetPipeline, target.stageId, status, state.reopenTo ?? null)
      if (Result.isFailure(placed)) return Result.fail([placed.failure])
      to = { ...target, stageId: placed.success }
    }
  }
  const moves = to.stageId !== stringField(state.fields, "stage_id") || to.pipelineId !== stringField(state.fields, "pipeline_id")
  const outcome = outcomeOf(targetPipeline, to.stageId)
  const left = outcomeOf(command.currentPipeline ?? targetPipeline, stringField(state.fields, "stage_id"))
  const moved = moves ? closingAfterMove(current, left, outcome, at, lostReason) : current
  // Where no move into a closing stage decides it, a given status (or lost reason) is set as given.
  const closing = moves && outcome !== null ? moved : closingWithStatus(moved, status ?? moved.status, at, lostReason)
  const misplaced = lostReasonOutOfPlace(fields, closing)
  return misplaced.length > 0 ? Result.fail(misplaced) : Result.succeed({ to, closing })
}

const update = (command: UpdateDeal, state: Live): Decision => {
  const target = destination(command, state)
  const placed = Result.isFailure(target) ? Result.fail([]) : closingOfPatch(command, state, target.success)
  const details = [
    ...(Result.isFailure(target) ? target.failure : []),
    ...(Result.isFailure(placed) ? placed.failure : []),
    ...unknownContacts(command.fields, command.unknownContactIds),
    ...unknownCompany(command.unknownCompanyId)
  ]
  if (details.length > 0 || Result.isFailure(placed)) return Result.fail(ValidationError.of(details))
  const { to, closing } = placed.success
  const { pipeline_id: _p, stage_id: _s, status: _st, lost_reason: _lr, ...patch } = command.fields
  const given = patchedCompanyId(patch, state.fields, command.trashedCompanyId ?? null)
  const rest: JsonObject =
    given["contact_ids"] === undefined
      ? given
      : {
          ...given,
          contact_ids: [...patchedContactIds(contactIdsOf(given), contactIdsOf(state.fields), new Set(command.trashedContactIds ?? []))]
        }
  const moves = to.stageId !== stringField(state.fields, "stage_id") || to.pipelineId !== stringField(state.fields, "pipeline_id")
  // A move carries the closing it leaves; without one, a changed closing is an update of its fields.
  const changed = changedFields(state.fields, moves || sameClosing(closing, closingOf(state.fields)) ? rest : { ...rest, ...closing })
  const events: Array<DealEvent> = []
  if (Object.keys(changed).length > 0) events.push({ type: "deal.updated", data: { changed, at: command.at } })
  // Last, so that a stage_changed webhook shows the deal with the whole patch applied.
  if (moves) events.push(stageChanged(state, to, command, null, closing))
  return Result.succeed(events)
}

const move = (command: MoveStage, state: Live): Decision => {
  const { at, pipeline, stageId } = command
  if (!hasStage(pipeline, stageId)) return Result.fail(ValidationError.of([foreignStage(pipeline)]))
  if (stageId === stringField(state.fields, "stage_id")) return Result.succeed([])
  const outcome = outcomeOf(pipeline, stageId)
  const lostReason = command.lostReason !== undefined ? command.lostReason : (command.reason ?? undefined)
  const closing = closingAfterMove(
    closingOf(state.fields),
    outcomeOf(pipeline, stringField(state.fields, "stage_id")),
    outcome,
    at,
    lostReason
  )
  if (command.lostReason !== undefined && command.lostReason !== null && outcome !== "lost") {
    return Result.fail(ValidationError.at("lost_reason", `may be given only with a move into a lost stage; stage ${stageId} is not one`))
  }
  return Result.succeed([stageChanged(state, { pipelineId: pipeline.id, stageId }, command, command.reason, closing)])
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
    case "RestoreDeal": {
      if (state.status !== "deleted" || !withinRecoveryWindow(state.deletedAt, at)) return notFound(id)
      // Links to records merged while it was in the trash point at their survivors as it comes back.
      const changed = changedFields(state.fields, command.fields ?? {})
      return Result.succeed([
        { type: "deal.restored", data: { at } },
        ...(Object.keys(changed).length === 0 ? [] : [{ type: "deal.updated" as const, data: { changed, at } }])
      ])
    }
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
    case "UnlinkContact":
      if (state.status !== "live" && state.status !== "deleted") return notFound(id)
      return Result.succeed(
        contactIdsOf(state.fields).includes(command.contactId)
          ? [{ type: "deal.contact_unlinked", data: { contact_id: command.contactId, at } }]
          : []
      )
    case "Relink": {
      // A merge's survivor takes the merged record's place in the links: no stage rule sees it.
      if (state.status === "deleted") return Result.succeed([])
      if (state.status !== "live") return notFound(id)
      const changed = changedFields(state.fields, command.fields)
      return Result.succeed(Object.keys(changed).length === 0 ? [] : [{ type: "deal.updated", data: { changed, at } }])
    }
  }
}

/** The open stage a deal leaves as it closes: where reopening it takes it back (closing.ts). */
const reopenToAfter = (state: Extract<DealState, { status: "live" }>, event: DealEvent): string | undefined => {
  const before = closingOf(state.fields).status
  if (event.type === "deal.stage_changed") {
    const { from_stage_id, from_status, to_status } = event.data
    return from_status === "open" && to_status !== undefined && to_status !== "open" ? from_stage_id : state.reopenTo
  }
  if (
    event.type === "deal.updated" &&
    before === "open" &&
    (event.data.changed["status"] === "won" || event.data.changed["status"] === "lost")
  ) {
    return stringField(state.fields, "stage_id")
  }
  return state.reopenTo
}

const live = (fields: JsonObject, reopenTo: string | undefined): DealState =>
  reopenTo === undefined ? { status: "live", fields } : { status: "live", fields, reopenTo }

const evolve = (state: DealState, event: DealEvent): DealState => {
  switch (event.type) {
    case "deal.created":
      return { status: "live", fields: event.data.fields }
    case "deal.updated":
      return state.status === "live" ? live({ ...state.fields, ...event.data.changed }, reopenToAfter(state, event)) : state
    case "deal.stage_changed":
      return state.status === "live" ? live({ ...state.fields, ...movedFields(event.data) }, reopenToAfter(state, event)) : state
    case "deal.deleted":
      return state.status === "live" ? { ...state, status: "deleted", deletedAt: event.data.at } : state
    case "deal.restored":
      return state.status === "deleted" ? live(state.fields, state.reopenTo) : state
    case "deal.purged":
      return { status: "purged" }
    case "deal.contact_unlinked":
      return state.status === "live" || state.status === "deleted"
        ? { ...state, fields: withoutContact(state.fields, event.data.contact_id) }
        : state
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
