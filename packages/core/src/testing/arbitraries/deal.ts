import * as fc from "fast-check"
import type { Projected } from "../../decider.js"
import { dealAggregate } from "../../deal/aggregate.js"
import type { CreateDeal, DealCommand, DeleteDeal, MoveStage, PurgeDeal, RestoreDeal, UpdateDeal } from "../../deal/commands.js"
import type { DealState } from "../../deal/state.js"
import type { DealCreated, DealEvent, DealStageChanged, DealUpdated } from "../../deal/events.js"
import type { Json, JsonObject } from "../../json.js"
import type { PipelineInfo } from "../../pipeline/decider.js"
import { type StreamNow, type Trace, traceCommands } from "../trace.js"
import { DAY, gap, idOf, instant, isoAt, orNull, START, word } from "./common.js"
import { pipelineInfo, pipelineInfos } from "./pipeline.js"

const contactId = fc.constantFrom("con_a", "con_b", "con_c", "con_d")
const closeDate = fc.integer({ min: 0, max: 700 }).map((d) => isoAt(START + d * DAY).slice(0, 10))

/** Values as the input parsers leave them: typed, trimmed, null where cleared. */
const standardValues = {
  name: word,
  value: orNull(fc.constantFrom(0, 100, 2.5, 1_000_000)),
  currency: orNull(fc.constantFrom("EUR", "USD", "JPY")),
  expected_close_date: orNull(closeDate),
  owner_id: orNull(fc.constantFrom("usr_1", "usr_2")),
  contact_ids: fc.uniqueArray(contactId, { maxLength: 3 }),
  status: fc.constantFrom("open", "won", "lost")
}

/** A deal's fields as `parseDealCreate` leaves them, in `pipeline` (stage null: the decider picks the first). */
export const dealFields = (pipeline: PipelineInfo): fc.Arbitrary<JsonObject> =>
  fc
    .record({
      ...standardValues,
      stage_id: fc.option(fc.constantFrom(...pipeline.stages.map((s) => s.id)), { nil: null, freq: 2 })
    })
    .map(({ stage_id, ...rest }) => ({ ...rest, pipeline_id: pipeline.id, stage_id }))

/** A patch as `parseDealPatch` leaves it: some standard keys, no stage or pipeline. */
export const dealPatch: fc.Arbitrary<JsonObject> = fc.record(standardValues, { requiredKeys: [] })

const stageOf = (pipeline: PipelineInfo, n: number) => pipeline.stages[n % pipeline.stages.length]!.id

export const createDeal: fc.Arbitrary<CreateDeal> = pipelineInfo.chain((pipeline) =>
  fc.record({ id: idOf("deal"), at: instant, fields: dealFields(pipeline) }).map((c) => ({
    type: "CreateDeal",
    ...c,
    pipeline,
    unknownContactIds: []
  }))
)

/** A patch of a deal in `pipeline`; now and then it moves the deal to one of its stages. */
export const updateDeal: fc.Arbitrary<UpdateDeal> = pipelineInfo.chain((pipeline) =>
  fc
    .record({
      id: idOf("deal"),
      at: instant,
      patch: dealPatch,
      stage: fc.option(fc.nat(9), { nil: null }),
      entryId: idOf("tle")
    })
    .map(({ patch, stage, ...c }) => ({
      type: "UpdateDeal",
      ...c,
      fields: stage === null ? patch : { ...patch, stage_id: stageOf(pipeline, stage) },
      targetPipeline: pipeline,
      unknownContactIds: []
    }))
)

/** A move within the deal's own pipeline (mostly), as the engine builds it; sometimes to a stage of none. */
export const moveStage: fc.Arbitrary<MoveStage> = pipelineInfo.chain((pipeline) =>
  fc
    .record({
      id: idOf("deal"),
      at: instant,
      stageId: fc.oneof(
        { arbitrary: fc.constantFrom(...pipeline.stages.map((s) => s.id)), weight: 9 },
        { arbitrary: idOf("stage"), weight: 1 }
      ),
      reason: orNull(word),
      entryId: idOf("tle")
    })
    .map((c) => ({ type: "MoveStage", ...c, pipeline }))
)

const idAt = <T extends string>(type: T) => fc.record({ id: idOf("deal"), at: instant }).map((c) => ({ type, ...c }))

export const deleteDeal: fc.Arbitrary<DeleteDeal> = idAt("DeleteDeal")
export const restoreDeal: fc.Arbitrary<RestoreDeal> = idAt("RestoreDeal")
export const purgeDeal: fc.Arbitrary<PurgeDeal> = idAt("PurgeDeal")

// ---------------------------------------------------------------- one deal's life

/** What happens to a deal after its creation, as data (a counterexample prints as it ran). */
export type DealStep =
  /** A PATCH: its fields, perhaps a stage or pipeline id (of the scenario's, or one that does not exist). */
  | { readonly kind: "patch"; readonly fields: JsonObject; readonly gap: number }
  /** A stage move: stage `stage` of the deal's own pipeline, or of all the scenario's stages when not `own`. */
  | { readonly kind: "move"; readonly stage: number; readonly own: boolean; readonly reason: string | null; readonly gap: number }
  | { readonly kind: "delete" | "restore" | "purge"; readonly gap: number }

/** A deal created in one of `pipelines`, then random steps. */
export interface DealScenario {
  readonly pipelines: ReadonlyArray<PipelineInfo>
  readonly createdIn: number
  /** An index into its pipeline's stages, or null for the first stage. */
  readonly createdStage: number | null
  readonly fields: JsonObject
  readonly steps: ReadonlyArray<DealStep>
}

export const GONE_PIPELINE = "pipe_gone"

const dealStep = (pipelines: ReadonlyArray<PipelineInfo>): fc.Arbitrary<DealStep> => {
  const stages = pipelines.flatMap((p) => p.stages.map((s) => s.id))
  const patch = fc.record(
    { ...standardValues, stage_id: fc.constantFrom(...stages), pipeline_id: fc.constantFrom(...pipelines.map((p) => p.id), GONE_PIPELINE) },
    { requiredKeys: [] }
  )
  return fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant("patch" as const), fields: patch, gap }), weight: 4 },
    {
      arbitrary: fc.record({
        kind: fc.constant("move" as const),
        stage: fc.nat(9),
        own: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
        reason: orNull(word),
        gap
      }),
      weight: 4
    },
    { arbitrary: fc.record({ kind: fc.constant("delete" as const), gap }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant("restore" as const), gap }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant("purge" as const), gap }), weight: 1 }
  )
}

/** One deal's life in random pipelines: most steps are accepted, some refused (a foreign stage, a late restore). */
export const dealScenario = (
  options: { readonly pipelines?: fc.Arbitrary<ReadonlyArray<PipelineInfo>>; readonly maxSteps?: number } = {}
) =>
  (options.pipelines ?? pipelineInfos).chain((pipelines) =>
    fc.record({
      pipelines: fc.constant(pipelines),
      createdIn: fc.nat(pipelines.length - 1),
      createdStage: fc.option(fc.nat(9), { nil: null }),
      fields: fc.record(standardValues),
      steps: fc.array(dealStep(pipelines), { maxLength: options.maxSteps ?? 40, size: "medium" })
    })
  ) as fc.Arbitrary<DealScenario>

export const DEAL_ID = "deal_1"

const stringOf = (value: Json | undefined) => (typeof value === "string" ? value : undefined)

/**
 * The scenario's commands as the engine would build them: times from the gaps, an entry id per
 * step, the pipeline the deal is in now (or the one a patch names) looked up among the scenario's.
 */
export const dealCommandsOf = (scenario: DealScenario): ReadonlyArray<DealCommand | ((stream: StreamNow<DealState>) => DealCommand)> => {
  const pipelineById = (id: Json | undefined) => scenario.pipelines.find((p) => p.id === id) ?? null
  const createdIn = scenario.pipelines[scenario.createdIn]!
  const allStages = scenario.pipelines.flatMap((p) => p.stages.map((s) => s.id))
  let now = START
  const create: DealCommand = {
    type: "CreateDeal",
    id: DEAL_ID,
    at: isoAt(now),
    fields: {
      ...scenario.fields,
      pipeline_id: createdIn.id,
      stage_id: scenario.createdStage === null ? null : stageOf(createdIn, scenario.createdStage)
    },
    pipeline: createdIn,
    unknownContactIds: []
  }
  return [
    create,
    ...scenario.steps.map((step, i) => {
      now += step.gap
      const at = isoAt(now)
      const entryId = `tle_${i}`
      return ({ document }: StreamNow<DealState>): DealCommand => {
        const current = pipelineById(document?.data["pipeline_id"]) ?? createdIn
        switch (step.kind) {
          case "patch":
            return {
              type: "UpdateDeal",
              id: DEAL_ID,
              at,
              fields: step.fields,
              entryId,
              targetPipeline: pipelineById(step.fields["pipeline_id"] ?? document?.data["pipeline_id"]),
              unknownContactIds: []
            }
          case "move":
            return {
              type: "MoveStage",
              id: DEAL_ID,
              at,
              stageId: step.own ? stageOf(current, step.stage) : allStages[step.stage % allStages.length]!,
              reason: step.reason,
              entryId,
              pipeline: current
            }
          case "delete":
            return { type: "DeleteDeal", id: DEAL_ID, at }
          case "restore":
            return { type: "RestoreDeal", id: DEAL_ID, at }
          case "purge":
            return { type: "PurgeDeal", id: DEAL_ID, at }
        }
      }
    })
  ]
}

/** Runs a scenario through the deal decider and projection (`decider` to trace one with rules of its own). */
export const traceDeal = (
  scenario: DealScenario,
  aggregate: Pick<typeof dealAggregate, "decider" | "project"> = dealAggregate
): Trace<DealCommand, DealEvent, DealState> => traceCommands(aggregate, dealCommandsOf(scenario))

// ---------------------------------------------------------------- events and documents

export const dealHistory: fc.Arbitrary<ReadonlyArray<DealEvent>> = dealScenario().map((s) => traceDeal(s).history)

export const dealCreated: fc.Arbitrary<DealCreated> = fc.tuple(pipelineInfo, idOf("deal"), instant).chain(([pipeline, id, at]) =>
  dealFields(pipeline).map((fields) => ({
    type: "deal.created",
    data: { id, fields: { ...fields, stage_id: fields["stage_id"] ?? pipeline.stages[0]!.id }, at }
  }))
)

export const dealUpdated: fc.Arbitrary<DealUpdated> = fc
  .tuple(
    dealPatch.filter((p) => Object.keys(p).length > 0),
    instant
  )
  .map(([changed, at]) => ({ type: "deal.updated", data: { changed, at } }))

/** A real move: between two different stages of one pipeline, or into another pipeline. */
export const dealStageChanged: fc.Arbitrary<DealStageChanged> = fc
  .tuple(pipelineInfo, pipelineInfo, fc.boolean())
  .chain(([from, other, across]) => {
    const to = across || from.stages.length < 2 ? other : from
    return fc
      .record({
        fromStage: fc.constantFrom(...from.stages.map((s) => s.id)),
        toStage: fc.constantFrom(...to.stages.map((s) => s.id)),
        entry_id: idOf("tle"),
        reason: orNull(word),
        at: instant
      })
      .filter((m) => m.fromStage !== m.toStage)
      .map(({ fromStage, toStage, ...rest }) => ({
        type: "deal.stage_changed",
        data: { ...rest, from_pipeline_id: from.id, to_pipeline_id: to.id, from_stage_id: fromStage, to_stage_id: toStage }
      }))
  })

const atOnly = <T extends "deal.deleted" | "deal.restored" | "deal.purged">(type: T) => instant.map((at) => ({ type, data: { at } }))

export const dealDocument: fc.Arbitrary<Projected> = dealScenario({ maxSteps: 15 })
  .map((s) => traceDeal(s))
  .filter((t) => t.document !== null)
  .map((t) => t.document!)

export const dealArbitraries = {
  commands: {
    CreateDeal: createDeal,
    UpdateDeal: updateDeal,
    MoveStage: moveStage,
    DeleteDeal: deleteDeal,
    RestoreDeal: restoreDeal,
    PurgeDeal: purgeDeal
  },
  command: fc.oneof(createDeal, updateDeal, moveStage, deleteDeal, restoreDeal, purgeDeal) as fc.Arbitrary<DealCommand>,
  scenario: dealScenario(),
  history: dealHistory,
  events: {
    "deal.created": dealCreated,
    "deal.updated": dealUpdated,
    "deal.stage_changed": dealStageChanged,
    "deal.deleted": atOnly("deal.deleted"),
    "deal.restored": atOnly("deal.restored"),
    "deal.purged": atOnly("deal.purged")
  },
  event: fc.oneof(
    dealCreated,
    dealUpdated,
    dealStageChanged,
    atOnly("deal.deleted"),
    atOnly("deal.restored"),
    atOnly("deal.purged")
  ) as fc.Arbitrary<DealEvent>,
  document: dealDocument,
  fields: dealFields,
  patch: dealPatch
}
