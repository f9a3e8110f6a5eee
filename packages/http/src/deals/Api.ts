import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  idempotencyHeader,
  idParam,
  ifMatchHeader,
  optionalText,
  pageOf,
  pagingParams,
  queryParams,
  securedGroup
} from "../documented.js"
import { Deal, DealInput, DealPatch, StageMove, StageMoveResult, TimelineEntry } from "./schemas.js"

const dealQuery = Schema.Struct({
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
})

export class DealsApi extends securedGroup("deals")
  .add(
    HttpApiEndpoint.get("list", "/v1/deals")
      .setUrlParams(dealQuery)
      .addSuccess(pageOf(Deal, "DealPage"))
      .annotate(OpenApi.Description, "Sort fields: value, created_at, updated_at, expected_close_date, name and custom fields.")
  )
  .add(HttpApiEndpoint.get("get")`/v1/deals/${idParam}`.addSuccess(Deal))
  .add(
    HttpApiEndpoint.post("create", "/v1/deals")
      .setPayload(DealInput)
      .setHeaders(idempotencyHeader)
      .addSuccess(Deal, { status: 201 })
  )
  .add(
    HttpApiEndpoint.patch("update")`/v1/deals/${idParam}`
      .setPayload(DealPatch)
      .setHeaders(ifMatchHeader)
      .addSuccess(Deal)
  )
  .add(
    HttpApiEndpoint.put("moveStage")`/v1/deals/${idParam}/stage`
      .setPayload(StageMove)
      .setHeaders(ifMatchHeader)
      .addSuccess(StageMoveResult)
      .annotate(OpenApi.Description, "Moves the deal and returns the timeline entry; the ETag is the deal's.")
  )
  .add(
    HttpApiEndpoint.del("delete")`/v1/deals/${idParam}`
      .setHeaders(ifMatchHeader)
      .addSuccess(HttpApiSchema.NoContent)
  )
  .add(
    HttpApiEndpoint.post("restore")`/v1/deals/${idParam}/restore`
      .setHeaders(idempotencyHeader)
      .addSuccess(Deal)
  )
  .add(
    HttpApiEndpoint.get("timeline")`/v1/deals/${idParam}/timeline`
      .setUrlParams(Schema.Struct(pagingParams))
      .addSuccess(pageOf(TimelineEntry, "TimelinePage"))
      .annotate(OpenApi.Description, "Stage changes of the deal, oldest first.")
  )
{}
