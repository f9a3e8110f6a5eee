import { historyDescription, HistoryEntry } from "../history/schemas.js"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { batchDescription, batchInput, BatchResults } from "../batch.js"
import {
  actionErrors,
  batchErrors,
  replayable200,
  created,
  createErrors,
  deleteErrors,
  listErrors,
  NoContent,
  readErrors,
  restored,
  single,
  writeErrors
} from "../answerSchemas.js"
import { pageOf, securedGroup } from "../documented.js"
import { dealGetParams, dealParams, idempotencyHeader, idParams, ifMatchHeader, pagingParams } from "../parameters.js"
import { Deal, DealInput, DealPatch, StageMove, StageMoveResult, TimelineEntry } from "./schemas.js"

export class DealsApi extends securedGroup(
  "deals",
  HttpApiEndpoint.get("list", "/v1/deals", {
    query: dealParams,
    success: pageOf(Deal, "DealPage"),
    error: listErrors
  }).annotate(OpenApi.Description, "Sort fields: value, created_at, updated_at, expected_close_date, name and custom fields."),
  HttpApiEndpoint.get("get", "/v1/deals/:id", {
    params: idParams,
    query: dealGetParams,
    success: single(Deal),
    error: readErrors
  }).annotate(
    OpenApi.Description,
    "company_id is null while the deal's company is in the trash, and comes back on its restore. expand=companies adds " +
      "`companies`: a list of none or one company (not an object in place of company_id), so that contacts and deals " +
      "expand the same way."
  ),
  HttpApiEndpoint.post("batch", "/v1/deals/batch", {
    payload: batchInput("Deal", "DealBatch", null),
    headers: idempotencyHeader,
    success: replayable200(BatchResults),
    error: batchErrors
  }).annotate(OpenApi.Description, batchDescription("deals", null)),
  HttpApiEndpoint.post("create", "/v1/deals", {
    payload: DealInput,
    headers: idempotencyHeader,
    success: created(Deal),
    error: createErrors
  }),
  HttpApiEndpoint.patch("update", "/v1/deals/:id", {
    params: idParams,
    payload: DealPatch,
    headers: ifMatchHeader,
    success: single(Deal),
    error: writeErrors
  }),
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
  HttpApiEndpoint.delete("delete", "/v1/deals/:id", {
    params: idParams,
    headers: ifMatchHeader,
    success: NoContent,
    error: deleteErrors
  }),
  HttpApiEndpoint.post("restore", "/v1/deals/:id/restore", {
    params: idParams,
    headers: idempotencyHeader,
    success: restored(Deal),
    error: actionErrors
  }),
  HttpApiEndpoint.get("timeline", "/v1/deals/:id/timeline", {
    params: idParams,
    query: pagingParams,
    success: pageOf(TimelineEntry, "TimelinePage"),
    error: readErrors
  }).annotate(OpenApi.Description, "Stage changes of the deal, oldest first."),
  HttpApiEndpoint.get("history", "/v1/deals/:id/history", {
    params: idParams,
    query: pagingParams,
    success: pageOf(HistoryEntry, "HistoryPage"),
    error: readErrors
  }).annotate(OpenApi.Description, historyDescription("deal"))
) {}
