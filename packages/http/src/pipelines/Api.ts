import { HttpApiEndpoint } from "@effect/platform"
import { idempotencyHeader, idParam, ifMatchHeader, pageOf, securedGroup } from "../documented.js"
import { Pipeline, PipelineInput, PipelinePatch } from "./schemas.js"

export class PipelinesApi extends securedGroup("pipelines")
  .add(HttpApiEndpoint.get("list", "/v1/pipelines").addSuccess(pageOf(Pipeline, "PipelinePage")))
  .add(HttpApiEndpoint.get("get")`/v1/pipelines/${idParam}`.addSuccess(Pipeline))
  .add(
    HttpApiEndpoint.post("create", "/v1/pipelines")
      .setPayload(PipelineInput)
      .setHeaders(idempotencyHeader)
      .addSuccess(Pipeline, { status: 201 })
  )
  .add(
    HttpApiEndpoint.patch("update")`/v1/pipelines/${idParam}`
      .setPayload(PipelinePatch)
      .setHeaders(ifMatchHeader)
      .addSuccess(Pipeline)
  )
{}
