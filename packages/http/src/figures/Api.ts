import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { readErrors } from "../answerSchemas.js"
import { conversionParams, forecastParams, idParams, summaryParams } from "../parameters.js"
import { DealForecast, PipelineConversion, PipelineSummary } from "./schemas.js"

/**
 * The pipeline figures (API.md, "Pipeline analytics"): the summary and conversion stand among the
 * pipelines' endpoints, the forecast among the deals'. Money per currency, live deals only.
 */

export const summaryEndpoint = HttpApiEndpoint.get("summary", "/v1/pipelines/:id/summary", {
  params: idParams,
  query: summaryParams,
  success: PipelineSummary,
  error: readErrors
}).annotate(
  OpenApi.Description,
  "Per stage the live deals' count, value and weighted value per currency and the mean days they have been in it; the " +
    "open deals' totals. Read from figures kept with every deal write. With as_of: the pipeline and its deals as they " +
    "stood then, folded from the workspace's deal history (so it costs what that history does: docs/analytics.md)."
)

export const conversionEndpoint = HttpApiEndpoint.get("conversion", "/v1/pipelines/:id/conversion", {
  params: idParams,
  query: conversionParams,
  success: PipelineConversion,
  error: readErrors
}).annotate(
  OpenApi.Description,
  "Stage-to-stage conversion, days in each stage, win rate and cycle length over the window [from, to) of UTC dates."
)

export const forecastEndpoint = HttpApiEndpoint.get("forecast", "/v1/deals/forecast", {
  query: forecastParams,
  success: DealForecast,
  error: readErrors
}).annotate(
  OpenApi.Description,
  "Open deals by the period of their expected_close_date, won deals by the period of their closed_at, over the window " +
    "[from, to) (at most 120 periods); open deals without a date are unscheduled."
)
