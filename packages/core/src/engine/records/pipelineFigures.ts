import { Clock, Effect, Result } from "effect"
import {
  conversionAnswer,
  type FigureWindow,
  forecastAnswer,
  MAX_PERIODS,
  parseFigureParams,
  periodsOf,
  stageRanks,
  summaryAnswer
} from "../../analytics/index.js"
import { DEAL_STANDING, STAGE_CHANGE, standingOf } from "../../deal/figureDocuments.js"
import { NotFound, ValidationError } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { PipelineInfo } from "../../pipeline/decider.js"
import { pipelineInfoOfView } from "../../pipeline/projection.js"
import { figureRows } from "../../query/figureRows.js"
import type { ListParams } from "../../query/parseListQuery.js"
import type { FiguresQuery, StageProbability } from "../../storage/figures.js"
import type { EngineDeps } from "../base/deps.js"
import { queryAll } from "../base/reads.js"
import { settingsOf } from "../base/settings.js"
import { storableParams } from "../base/storable.js"
import type { RequestContext } from "../contract/Engine.js"
import { dealsAt, pipelineAt } from "../views/asOf.js"

/**
 * The pipeline figures of API.md, "Pipeline analytics": each one or three aggregate queries over
 * the figure documents the deals' commits keep (deal/figureDocuments.ts; the storage answers them,
 * storage/figures.ts), assembled by analytics/. A pipeline's stages (positions, outcomes,
 * probabilities) are read as the workspace's settings hold them now; the summary `as_of` an
 * instant folds the workspace's deal events up to it instead, so it costs what that history does.
 */
export const makePipelineFigures = (deps: EngineDeps) => {
  const pipelineOf = (ctx: RequestContext, id: string) =>
    Effect.flatMap(settingsOf(deps.storage, deps.settings, ctx, true).pipeline(id), (pipeline) =>
      pipeline === null ? Effect.fail(new NotFound({ resource: "pipeline", id })) : Effect.succeed(pipeline)
    )

  const probabilitiesOf = (pipelines: ReadonlyArray<PipelineInfo>): ReadonlyArray<StageProbability> =>
    pipelines.flatMap((pipeline) =>
      pipeline.stages.flatMap((stage) => (stage.probability === undefined ? [] : [{ stageId: stage.id, probability: stage.probability }]))
    )

  const rowsOf = (ctx: RequestContext, query: FiguresQuery) =>
    Effect.map(
      deps.storage.queryDocuments(
        query._tag === "Entries" || query._tag === "Stays" ? STAGE_CHANGE : DEAL_STANDING,
        ctx.workspaceId,
        query
      ),
      (documents): ReadonlyArray<JsonObject> => documents.map((document) => document.data)
    )

  const paramsOf = (params: ListParams, names: Parameters<typeof parseFigureParams>[1]) =>
    Effect.flatMap(storableParams(params), (storable) => {
      const parsed = parseFigureParams(storable, names)
      return Result.isFailure(parsed) ? Effect.fail(parsed.failure) : Effect.succeed(parsed.success)
    })

  /** The window parseFigureParams required (it refuses a request without both dates). */
  const windowOf = (window: FigureWindow | null) =>
    window === null ? Effect.fail(ValidationError.at("from", "is required (a date YYYY-MM-DD)")) : Effect.succeed(window)

  /** The pipeline as it stood at an instant, from its deals' events folded up to then. */
  const summaryAsOf = (ctx: RequestContext, id: string, instant: string, ownerId: string | null) =>
    Effect.gen(function* () {
      const pipeline = yield* pipelineAt(deps, ctx, id, instant)
      if (pipeline === null) return yield* new NotFound({ resource: "pipeline", id })
      const standings = [...(yield* dealsAt(deps, ctx, instant)).entries()].map(([dealId, deal]) => ({
        id: dealId,
        deletedAt: deal.deletedAt,
        data: standingOf(deal.data)
      }))
      const query = { _tag: "Standing", pipelineId: id, ownerId, probabilities: probabilitiesOf([pipeline]) } as const
      return summaryAnswer(pipeline, Date.parse(instant), figureRows(query, standings))
    })

  const summary = (ctx: RequestContext, id: string, params: ListParams) =>
    Effect.gen(function* () {
      const { asOf, ownerId } = yield* paramsOf(params, ["owner_id", "as_of"])
      if (asOf !== null) return yield* summaryAsOf(ctx, id, asOf, ownerId)
      const pipeline = yield* pipelineOf(ctx, id)
      const now = yield* Clock.currentTimeMillis
      const rows = yield* rowsOf(ctx, { _tag: "Standing", pipelineId: id, ownerId, probabilities: probabilitiesOf([pipeline]) })
      return summaryAnswer(pipeline, now, rows)
    })

  const conversion = (ctx: RequestContext, id: string, params: ListParams) =>
    Effect.gen(function* () {
      const { ownerId, window } = yield* paramsOf(params, ["from", "to", "owner_id"])
      const pipeline = yield* pipelineOf(ctx, id)
      const { fromMs: from, toMs: to } = yield* windowOf(window)
      const scope = { pipelineId: id, ownerId, from, to }
      const [entries, stays, closed] = yield* Effect.all(
        [
          rowsOf(ctx, { _tag: "Entries", ...scope, stages: stageRanks(pipeline) }),
          rowsOf(ctx, { _tag: "Stays", ...scope, stageIds: pipeline.stages.map((stage) => stage.id) }),
          rowsOf(ctx, { _tag: "Closed", ...scope })
        ],
        { concurrency: 3 }
      )
      return conversionAnswer(pipeline, yield* windowOf(window), { entries, stays, closed })
    })

  const forecast = (ctx: RequestContext, params: ListParams) =>
    Effect.gen(function* () {
      const parsed = yield* paramsOf(params, ["pipeline_id", "owner_id", "interval", "from", "to"])
      const { interval, ownerId, pipelineId } = parsed
      const window = yield* windowOf(parsed.window)
      const periods = periodsOf(window, interval)
      if (periods.length > MAX_PERIODS) {
        return yield* ValidationError.at("to", `must be within ${MAX_PERIODS} ${interval}s of from (the window spans ${periods.length})`)
      }
      const pipelines =
        pipelineId === null
          ? (yield* queryAll(deps, "pipeline", ctx.workspaceId, { _tag: "True" })).map((doc) => pipelineInfoOfView(doc.data))
          : [yield* Effect.mapError(pipelineOf(ctx, pipelineId), () => ValidationError.at("pipeline_id", "does not exist"))]
      const rows = yield* rowsOf(ctx, {
        _tag: "Forecast",
        pipelineId,
        ownerId,
        fromDate: window.from,
        toDate: window.to,
        from: window.fromMs,
        to: window.toMs,
        probabilities: probabilitiesOf(pipelines)
      })
      return forecastAnswer(window, interval, rows)
    })

  return { summary, conversion, forecast }
}
