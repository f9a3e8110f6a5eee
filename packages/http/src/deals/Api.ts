import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { readErrors, single, writeErrors } from "../answerSchemas.js"
import { pageOf, securedGroup } from "../documented.js"
import { dealGetParams, dealParams, idParams, ifMatchHeader, pagingParams } from "../parameters.js"
import { batchEndpoint, recordEndpoints } from "../recordEndpoints.js"
import { forecastEndpoint } from "../figures/Api.js"
import { Deal, DealInput, DealPatch, StageMove, StageMoveResult, TimelineEntry } from "./schemas.js"

const deals = recordEndpoints({
  name: "Deal",
  collection: "/v1/deals",
  record: Deal,
  input: DealInput,
  patch: DealPatch,
  list: {
    query: dealParams,
    description:
      "Sort fields: value, created_at, updated_at, expected_close_date, name, closed_at, weighted_value (by the exact product, " +
      "with the stages' probabilities as they are now) and custom fields."
  },
  get: {
    query: dealGetParams,
    description:
      "company_id is null while the deal's company is in the trash, and comes back on its restore. expand=companies adds " +
      "`companies`: a list of none or one company (not an object in place of company_id), so that contacts and deals " +
      "expand the same way."
  }
})

// A deal's own endpoints stand among the standard ones, where the OpenAPI document has always shown them.
export class DealsApi extends securedGroup(
  "deals",
  deals.list,
  deals.export,
  forecastEndpoint,
  deals.get,
  batchEndpoint({ name: "Deal", collection: "/v1/deals" }, null),
  deals.create,
  deals.update,
  HttpApiEndpoint.put("moveStage", "/v1/deals/:id/stage", {
    params: idParams,
    payload: StageMove,
    headers: ifMatchHeader,
    success: single(StageMoveResult),
    error: writeErrors
  }).annotate(
    OpenApi.Description,
    "Moves the deal and returns the timeline entry; the ETag is the deal's. The pipeline's stage rules apply (see Stage: " +
      "required_fields, next_stage_ids), as they do to a create or PATCH that puts the deal in a stage: a move they refuse " +
      "is 400 validation_error, its details naming the rule and the stage."
  ),
  deals.delete,
  deals.restore,
  HttpApiEndpoint.get("timeline", "/v1/deals/:id/timeline", {
    params: idParams,
    query: pagingParams,
    success: pageOf(TimelineEntry, "TimelinePage"),
    error: readErrors
  }).annotate(OpenApi.Description, "Stage changes of the deal, oldest first."),
  deals.history
) {}
