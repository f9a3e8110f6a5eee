import { HttpApiEndpoint, HttpApiSchema } from "effect/http-api"
import { idempotencyHeader, idParams, ifMatchHeader, pageOf, securedErrors, securedGroup } from "../documented.js"
import { Pipeline, PipelineInput, PipelinePatch } from "./schemas.js"

export class PipelinesApi extends securedGroup(
  "pipelines",
  HttpApiEndpoint.get("list", "/v1/pipelines", { success: pageOf(Pipeline, "PipelinePage"), error: securedErrors }),
  HttpApiEndpoint.get("get", "/v1/pipelines/:id", { params: idParams, success: Pipeline, error: securedErrors }),
  HttpApiEndpoint.post("create", "/v1/pipelines", {
    payload: PipelineInput,
    headers: idempotencyHeader,
    success: Pipeline.pipe(HttpApiSchema.status(201)),
    error: securedErrors
  }),
  HttpApiEndpoint.patch("update", "/v1/pipelines/:id", {
    params: idParams,
    payload: PipelinePatch,
    headers: ifMatchHeader,
    success: Pipeline,
    error: securedErrors
  })
) {}
