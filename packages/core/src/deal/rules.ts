import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { DomainError } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { PipelineInfo } from "../pipeline/decider.js"
import type { Stage } from "../pipeline/events.js"
import type { DealCommand } from "./commands.js"
import type { DealEvent } from "./events.js"
import type { DealState } from "./state.js"

/** What the deal's own rules decided for a command: the events it would record and the deal after them. */
export interface DealDecision {
  readonly events: ReadonlyArray<DealEvent>
  readonly after: DealState
}

/**
 * A rule of your own for deals, pure: given the command, the deal's current state and what the
 * built-in rules decided (`decision`: the events and the deal after them), it returns nothing to let
 * the command through, or the domain error to refuse it with (a `ValidationError` answers 400 with
 * its details, a `Conflict` 409). Rules see every accepted command that records events (create,
 * update, stage move, delete, restore), never the purge of an expired deal nor the removal of an
 * erased contact from its contact_ids (UnlinkContact: an erasure is never refused). Register them with the
 * engine: `EngineLive.pipe(Layer.provide(DealRules.layer([rule])))`.
 *
 * ```ts
 * const proposalNeedsValue: DealRule = (command, _state, decision) => {
 *   const entered = stageEntered(command, decision)
 *   if (entered?.stage?.name === "Proposal" && fieldsAfter(decision)["value"] == null) {
 *     return ValidationError.at("value", "is required to enter Proposal")
 *   }
 * }
 * ```
 */
export type DealRule = (command: DealCommand, state: DealState, decision: DealDecision) => DomainError | undefined | void

/**
 * The deal decider with rules after its own: a command its own rules accept (and that records
 * something) is then put to each rule in turn, and the first refusal refuses it.
 */
export const withDealRules = (
  decider: Decider<DealCommand, DealEvent, DealState>,
  rules: ReadonlyArray<DealRule>
): Decider<DealCommand, DealEvent, DealState> =>
  rules.length === 0
    ? decider
    : {
        ...decider,
        decide: (command, state) => {
          const decided = decider.decide(command, state)
          if (Result.isFailure(decided) || decided.success.length === 0 || command.type === "UnlinkContact" || command.type === "Relink")
            return decided
          const decision = { events: decided.success, after: decided.success.reduce(decider.evolve, state) }
          for (const rule of rules) {
            const refusal = rule(command, state, decision)
            if (refusal !== undefined) return Result.fail(refusal)
          }
          return decided
        }
      }

/** A stage the deal enters: by its creation, or by a move (a stage move, or a patch of stage or pipeline). */
export interface StageEntered {
  readonly stageId: string
  /** The stage as its pipeline has it now (undefined when the command did not carry the pipeline). */
  readonly stage: Stage | undefined
  readonly pipeline: PipelineInfo | null
  /** The stage the deal leaves, when it moves (null on creation). */
  readonly from: { readonly stageId: string; readonly pipelineId: string } | null
}

const pipelineOf = (command: DealCommand): PipelineInfo | null =>
  command.type === "CreateDeal"
    ? command.pipeline
    : command.type === "UpdateDeal"
      ? command.targetPipeline
      : command.type === "MoveStage"
        ? command.pipeline
        : null

/** The stage this decision puts the deal into, or null when it stays where it is. */
export const stageEntered = (command: DealCommand, decision: DealDecision): StageEntered | null => {
  const pipeline = pipelineOf(command)
  for (const event of decision.events) {
    const entered =
      event.type === "deal.created"
        ? { stageId: event.data.fields["stage_id"], from: null }
        : event.type === "deal.stage_changed"
          ? { stageId: event.data.to_stage_id, from: { stageId: event.data.from_stage_id, pipelineId: event.data.from_pipeline_id } }
          : null
    if (entered === null || typeof entered.stageId !== "string") continue
    return { ...entered, stageId: entered.stageId, stage: pipeline?.stages.find((s) => s.id === entered.stageId), pipeline }
  }
  return null
}

/**
 * The stage the deal is in after the decision, as the command's pipeline has it: for a create,
 * a patch or a move (undefined for a delete or a restore, whose commands carry no pipeline).
 */
export const stageAfter = (command: DealCommand, decision: DealDecision): Stage | undefined => {
  const stageId = fieldsAfter(decision)["stage_id"]
  return pipelineOf(command)?.stages.find((s) => s.id === stageId)
}

/** The deal's fields after the decision (custom ones included); empty once it is purged. */
export const fieldsAfter = (decision: DealDecision): JsonObject =>
  decision.after.status === "live" || decision.after.status === "deleted" ? decision.after.fields : {}
