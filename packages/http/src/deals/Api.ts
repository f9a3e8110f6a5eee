import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  idempotencyHeader,
  idParams,
  NoContent,
  ifMatchHeader,
  optionalText,
  pageOf,
  pagingParams,
  queryParams,
  securedErrors,
  securedGroup
} from "../documented.js"
import { Deal, DealInput, DealPatch, StageMove, StageMoveResult, TimelineEntry } from "./schemas.js"

const dealQuery = {
  ...queryParams,
  pipeline_id: optionalText("Only deals of this pipeline."),
  stage_id: optionalText("Only deals in this stage."),
  owner_id: optionalText("Only deals of this owner."),
  status: optionalText("open, won or lost."),
  contact_id: optionalText("Only deals associated with this contact."),
  value_min: optionalText("Minimum value (inclusive)."),
  value_max: optionalText("Maximum value (inclusive)."),
  close_date_from: optionalText("Earliest expected_close_date, YYYY-MM-DD (inclusive)."),
  close_date_to: optionalText("Latest expected_close_date, YYYY-MM-DD (inclusive).")
}

export class DealsApi extends securedGroup(
  "deals",
  HttpApiEndpoint.get("list", "/v1/deals", {
    query: dealQuery,
    success: pageOf(Deal, "DealPage"),
    error: securedErrors
  }).annotate(OpenApi.Description, "Sort fields: value, created_at, updated_at, expected_close_date, name and custom fields."),
  HttpApiEndpoint.get("get", "/v1/deals/:id", { params: idParams, success: Deal, error: securedErrors }),
  HttpApiEndpoint.post("create", "/v1/deals", {
    payload: DealInput,
    headers: idempotencyHeader,
    success: Deal.pipe(HttpApiSchema.status(201)),
    error: securedErrors
  }),
  HttpApiEndpoint.patch("update", "/v1/deals/:id", {
    params: idParams,
    payload: DealPatch,
    headers: ifMatchHeader,
    success: Deal,
    error: securedErrors
  }),
  HttpApiEndpoint.put("moveStage", "/v1/deals/:id/stage", {
    params: idParams,
    payload: StageMove,
    headers: ifMatchHeader,
    success: StageMoveResult,
    error: securedErrors
  }).annotate(OpenApi.Description, "Moves the deal and returns the timeline entry; the ETag is the deal's."),
  HttpApiEndpoint.delete("delete", "/v1/deals/:id", {
    params: idParams,
    headers: ifMatchHeader,
    success: NoContent,
    error: securedErrors
  }),
  HttpApiEndpoint.post("restore", "/v1/deals/:id/restore", {
    params: idParams,
    headers: idempotencyHeader,
    success: Deal,
    error: securedErrors
  }),
  HttpApiEndpoint.get("timeline", "/v1/deals/:id/timeline", {
    params: idParams,
    query: pagingParams,
    success: pageOf(TimelineEntry, "TimelinePage"),
    error: securedErrors
  }).annotate(OpenApi.Description, "Stage changes of the deal, oldest first.")
) {}
