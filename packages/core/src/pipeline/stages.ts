import type { ErrorDetail } from "../errors.js"
import type { StageInput } from "./commands.js"
import type { Stage } from "./events.js"

/** What a list leaves out stays as it was; null clears it. */
const keptOr = <A>(given: A | null | undefined, before: A | undefined): A | null => (given === undefined ? (before ?? null) : given)

/**
 * The stages a command's list makes, in its order: positions 0, 1, …, and each stage's outcome,
 * probability and rules as given, or as the stage had them when the list leaves them out
 * (`current`: the pipeline's stages before an update). Each is kept only when set, so a stage
 * without them has none of their keys.
 */
export const stagesOf = (inputs: ReadonlyArray<StageInput>, current: ReadonlyArray<Stage> = []): ReadonlyArray<Stage> =>
  inputs.map((input, position) => {
    const before = current.find((s) => s.id === input.id)
    const outcome = keptOr(input.outcome, before?.outcome)
    const probability = keptOr(input.probability, before?.probability)
    const required = input.required_fields ?? before?.required_fields ?? []
    const next = keptOr(input.next_stage_ids, before?.next_stage_ids)
    return {
      id: input.id,
      name: input.name,
      position,
      ...(outcome === null ? {} : { outcome }),
      ...(probability === null ? {} : { probability }),
      ...(required.length === 0 ? {} : { required_fields: required }),
      ...(next === null ? {} : { next_stage_ids: next })
    }
  })

/** A stage's `next_stage_ids` may name only stages of the same list (one removed by it included). */
export const strayNextStages = (stages: ReadonlyArray<Stage>): Array<ErrorDetail> => {
  const ids = new Set(stages.map((s) => s.id))
  return stages.flatMap((stage, i) =>
    (stage.next_stage_ids ?? []).flatMap((id, j) =>
      ids.has(id) ? [] : [{ path: `stages[${i}].next_stage_ids[${j}]`, message: `names ${id}, which is not a stage of this pipeline` }]
    )
  )
}

const sameList = (a: ReadonlyArray<string> | undefined, b: ReadonlyArray<string> | undefined) =>
  a === undefined || b === undefined ? a === b : a.length === b.length && a.every((x, i) => x === b[i])

export const sameStages = (a: ReadonlyArray<Stage>, b: ReadonlyArray<Stage>): boolean =>
  a.length === b.length &&
  a.every((s, i) => {
    const t = b[i]
    return (
      t !== undefined &&
      s.id === t.id &&
      s.name === t.name &&
      s.position === t.position &&
      s.outcome === t.outcome &&
      s.probability === t.probability &&
      sameList(s.required_fields, t.required_fields) &&
      sameList(s.next_stage_ids, t.next_stage_ids)
    )
  })
