import { type ErrorDetail, ValidationError } from "../errors.js"
import type { Json } from "../json.js"
import { fieldsAfter, type DealRule, stageEntered } from "./rules.js"

/** A field holds a value: not absent, null, an empty string or an empty list. */
const isSet = (value: Json | undefined) =>
  value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0)

/**
 * The pipeline's own stage rules, set through the API (PATCH /v1/pipelines/:id): a deal enters a
 * stage only with every field of its `required_fields` set (on creation too), and leaves a stage with
 * `next_stage_ids` only for one of them (within its pipeline: a move to another pipeline is checked
 * against the new stage's fields only). A refusal is a ValidationError naming the rule and the stage.
 */
export const pipelineStageRules: DealRule = (command, _state, decision) => {
  const entered = stageEntered(command, decision)
  if (entered === null || entered.stage === undefined || entered.pipeline === null) return
  const { pipeline, stage } = entered
  const details: Array<ErrorDetail> = []
  const from =
    entered.from === null || entered.from.pipelineId !== pipeline.id
      ? undefined
      : pipeline.stages.find((s) => s.id === entered.from!.stageId)
  if (from?.next_stage_ids !== undefined && !from.next_stage_ids.includes(stage.id)) {
    details.push({
      path: "stage_id",
      message: `stage "${stage.name}" may not follow stage "${from.name}" (stage rule next_stage_ids of ${from.id})`,
      id: from.id
    })
  }
  const fields = fieldsAfter(decision)
  for (const field of stage.required_fields ?? []) {
    if (!isSet(fields[field])) {
      details.push({
        path: field,
        message: `is required to enter stage "${stage.name}" (stage rule required_fields of ${stage.id})`,
        id: stage.id
      })
    }
  }
  return details.length === 0 ? undefined : ValidationError.of(details)
}
