import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { DomainError, ErrorDetail } from "../errors.js"
import { Conflict, NotFound, ValidationError } from "../errors.js"
import type { PipelineCommand, StageInput, UpdatePipeline } from "./commands.js"
import type { PipelineEvent, PipelineUpdated, Stage } from "./events.js"
import { sameStages, stagesOf, strayNextStages } from "./stages.js"

export type PipelineState =
  | { readonly status: "absent" }
  | { readonly status: "live"; readonly id: string; readonly name: string; readonly stages: ReadonlyArray<Stage> }

/** What a deal command needs to know of a pipeline: which stages it has and their order. */
export interface PipelineInfo {
  readonly id: string
  readonly stages: ReadonlyArray<Stage>
}

export const pipelineInfoOf = (state: PipelineState): PipelineInfo | null =>
  state.status === "live" ? { id: state.id, stages: state.stages } : null

type Decision = Result.Result<ReadonlyArray<PipelineEvent>, DomainError>

/** Every given id must be a current stage or one the engine just made, and appear once. */
const unknownOrRepeatedIds = (command: UpdatePipeline, current: ReadonlyArray<Stage>, stages: ReadonlyArray<StageInput>) => {
  const currentIds = new Set(current.map((s) => s.id))
  const seen = new Set<string>()
  const details: Array<ErrorDetail> = []
  stages.forEach((stage, i) => {
    const path = `stages[${i}].id`
    if (!currentIds.has(stage.id) && !command.knownNewStageIds.has(stage.id)) {
      details.push({ path, message: "is not a stage of this pipeline" })
    } else if (seen.has(stage.id)) {
      details.push({ path, message: "is listed more than once" })
    }
    seen.add(stage.id)
  })
  return details
}

const update = (command: UpdatePipeline, state: Extract<PipelineState, { status: "live" }>): Decision => {
  const data: { name?: string; stages?: ReadonlyArray<Stage>; at: string } = { at: command.at }
  if (command.name !== undefined && command.name !== state.name) data.name = command.name
  if (command.stages !== undefined) {
    if (command.stages.length === 0) return Result.fail(ValidationError.at("stages", "must have at least one stage"))
    const invalid = unknownOrRepeatedIds(command, state.stages, command.stages)
    if (invalid.length > 0) return Result.fail(ValidationError.of(invalid))
    const kept = new Set(command.stages.map((s) => s.id))
    const stranded = state.stages.filter((s) => !kept.has(s.id) && command.stagesHoldingDeals.has(s.id))
    if (stranded.length > 0) {
      return Result.fail(
        new Conflict({
          message: `stage ${stranded.map((s) => s.name).join(", ")} still holds deals and cannot be removed`,
          details: stranded.map((s) => ({ path: "stages", message: `stage "${s.name}" holds live deals`, id: s.id }))
        })
      )
    }
    const stages = stagesOf(command.stages, state.stages)
    const stray = strayNextStages(stages)
    if (stray.length > 0) return Result.fail(ValidationError.of(stray))
    if (!sameStages(stages, state.stages)) data.stages = stages
  }
  const event: PipelineUpdated = { type: "pipeline.updated", data }
  return Result.succeed(data.name === undefined && data.stages === undefined ? [] : [event])
}

const decide = (command: PipelineCommand, state: PipelineState): Decision => {
  switch (command.type) {
    case "CreatePipeline": {
      if (state.status !== "absent") {
        return Result.fail(
          new Conflict({
            message: `pipeline ${command.id} already exists`,
            details: [{ path: "id", message: "already exists", id: command.id }]
          })
        )
      }
      const stages = stagesOf(command.stages)
      const stray = strayNextStages(stages)
      return stray.length > 0
        ? Result.fail(ValidationError.of(stray))
        : Result.succeed([{ type: "pipeline.created", data: { id: command.id, name: command.name, stages, at: command.at } }])
    }
    case "UpdatePipeline":
      return state.status === "live" ? update(command, state) : Result.fail(new NotFound({ resource: "pipeline", id: command.id }))
  }
}

const evolve = (state: PipelineState, event: PipelineEvent): PipelineState => {
  switch (event.type) {
    case "pipeline.created":
      return { status: "live", id: event.data.id, name: event.data.name, stages: event.data.stages }
    case "pipeline.updated":
      return state.status === "live" ? { ...state, name: event.data.name ?? state.name, stages: event.data.stages ?? state.stages } : state
  }
}

export const pipelineDecider: Decider<PipelineCommand, PipelineEvent, PipelineState> = {
  initialState: { status: "absent" },
  evolve,
  decide
}
