import * as fc from "fast-check"
import type { Projected } from "../../decider.js"
import type { CreatePipeline, PipelineCommand, StageInput, UpdatePipeline } from "../../pipeline/commands.js"
import type { PipelineInfo } from "../../pipeline/decider.js"
import type { PipelineCreated, PipelineEvent, PipelineUpdated, Stage } from "../../pipeline/events.js"
import { pipelineAggregate } from "../../pipeline/aggregate.js"
import { stagesOf } from "../../pipeline/stages.js"
import { traceCommands } from "../trace.js"
import { idOf, instant, streamScript, word } from "./common.js"

const STAGE_NAMES = ["Lead", "Qualified", "Proposal", "Negotiation", "Won", "Lost", "Intro", "Signed"] as const

/** The stage ids one generated pipeline draws from: its own, so two pipelines never share one. */
const stagePool = (pipelineId: string) => STAGE_NAMES.map((_, i) => `stage_${pipelineId.slice(5)}${i}`)

const stageName = fc.oneof(fc.constantFrom(...STAGE_NAMES), word)

/** Deal fields a stage may require: the standard ones that may be empty, and a custom one. */
export const REQUIRABLE_FIELDS = ["value", "currency", "expected_close_date", "owner_id", "contact_ids", "region"] as const

/**
 * A stage's rules, now and then: fields a deal needs to enter it, and the stages (of `ids`) it may
 * be left for. Mostly none, so most moves are accepted.
 */
const stageRules = (ids: ReadonlyArray<string>) =>
  fc.oneof(
    { arbitrary: fc.constant({}), weight: 4 },
    {
      arbitrary: fc.record(
        {
          required_fields: fc.subarray([...REQUIRABLE_FIELDS], { minLength: 1, maxLength: 2 }),
          next_stage_ids: fc.subarray([...ids])
        },
        { requiredKeys: [] }
      ),
      weight: 1
    }
  )

/** Stages as a command gives them (unique ids from the pool, in order), with rules now and then. */
const stageInputs = (pool: ReadonlyArray<string>, minLength = 1): fc.Arbitrary<ReadonlyArray<StageInput>> =>
  fc
    .uniqueArray(fc.constantFrom(...pool), { minLength, maxLength: 6 })
    .chain((ids) => fc.tuple(...ids.map((id) => fc.tuple(stageName, stageRules(ids)).map(([name, rules]) => ({ id, name, ...rules })))))

const positioned = (stages: ReadonlyArray<StageInput>): ReadonlyArray<Stage> => stagesOf(stages)

/** A pipeline as a deal command is given it: one to six stages with unique ids, positions 0, 1, … */
export const pipelineInfo: fc.Arbitrary<PipelineInfo> = idOf("pipe").chain((id) =>
  stageInputs(stagePool(id)).map((stages) => ({ id, stages: positioned(stages) }))
)

/** One to three pipelines with distinct ids (and so distinct stage ids). */
export const pipelineInfos: fc.Arbitrary<ReadonlyArray<PipelineInfo>> = fc.uniqueArray(pipelineInfo, {
  minLength: 1,
  maxLength: 3,
  selector: (p) => p.id
})

const createPipelineOf = (id: string): fc.Arbitrary<CreatePipeline> =>
  fc.record({ at: instant, name: word, stages: stageInputs(stagePool(id)) }).map((c) => ({ type: "CreatePipeline", id, ...c }))

/**
 * An update of pipeline `id`: a new name and/or a whole new stage list from the pipeline's pool.
 * Ids not yet in the pipeline count as new ones the engine made (mostly), and some stages hold
 * deals, so removals are sometimes refused.
 */
const updatePipelineOf = (id: string): fc.Arbitrary<UpdatePipeline> => {
  const pool = stagePool(id)
  return fc
    .record({
      at: instant,
      name: fc.option(word, { nil: undefined }),
      stages: fc.option(stageInputs(pool, 0), { nil: undefined, freq: 2 }),
      knownNew: fc.oneof({ arbitrary: fc.constant(true), weight: 5 }, { arbitrary: fc.constant(false), weight: 1 }),
      holding: fc.subarray(pool, { maxLength: 2 })
    })
    .map(({ at, holding, knownNew, name, stages }) => ({
      type: "UpdatePipeline",
      id,
      at,
      ...(name === undefined ? {} : { name }),
      ...(stages === undefined ? {} : { stages }),
      knownNewStageIds: new Set(knownNew ? pool : []),
      stagesHoldingDeals: new Set(holding)
    }))
}

export const createPipeline: fc.Arbitrary<CreatePipeline> = idOf("pipe").chain(createPipelineOf)
export const updatePipeline: fc.Arbitrary<UpdatePipeline> = idOf("pipe").chain(updatePipelineOf)

/** One stream's commands: its creation, then updates, in time order. */
export const pipelineScript: fc.Arbitrary<ReadonlyArray<PipelineCommand>> = idOf("pipe").chain((id) =>
  streamScript<PipelineCommand>(createPipelineOf(id), updatePipelineOf(id), 12)
)

/** Valid histories of one pipeline: what the decider records for a random script. */
export const pipelineHistory: fc.Arbitrary<ReadonlyArray<PipelineEvent>> = pipelineScript.map(
  (script) => traceCommands(pipelineAggregate, script).history
)

export const pipelineCreated: fc.Arbitrary<PipelineCreated> = createPipeline.map((c) => ({
  type: "pipeline.created",
  data: { id: c.id, name: c.name, stages: positioned(c.stages), at: c.at }
}))

export const pipelineUpdated: fc.Arbitrary<PipelineUpdated> = fc
  .record(
    { name: word, stages: idOf("pipe").chain((id) => stageInputs(stagePool(id)).map(positioned)), at: instant },
    { requiredKeys: ["at"] }
  )
  .map((data) => ({ type: "pipeline.updated", data }))

/** The pipeline document as the API returns it: the projection of a valid history. */
export const pipelineDocument: fc.Arbitrary<Projected> = pipelineScript.map((script) => traceCommands(pipelineAggregate, script).document!)

export const pipelineArbitraries = {
  commands: { CreatePipeline: createPipeline, UpdatePipeline: updatePipeline },
  command: fc.oneof(createPipeline, updatePipeline) as fc.Arbitrary<PipelineCommand>,
  script: pipelineScript,
  history: pipelineHistory,
  events: { "pipeline.created": pipelineCreated, "pipeline.updated": pipelineUpdated },
  event: fc.oneof(pipelineCreated, pipelineUpdated) as fc.Arbitrary<PipelineEvent>,
  document: pipelineDocument,
  info: pipelineInfo,
  infos: pipelineInfos
}
