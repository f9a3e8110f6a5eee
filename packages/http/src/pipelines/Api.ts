import { HttpApiEndpoint } from "effect/http-api"
import { created, createErrors, listErrors, readErrors, single, writeErrors } from "../answerSchemas.js"
import { pageOf, securedGroup } from "../documented.js"
import { idempotencyHeader, idParams, ifMatchHeader } from "../parameters.js"
import { Pipeline, PipelineInput, PipelinePatch } from "./schemas.js"

export class PipelinesApi extends securedGroup(
  "pipelines",
  HttpApiEndpoint.get("list", "/v1/pipelines", { success: pageOf(Pipeline, "PipelinePage"), error: listErrors }),
  HttpApiEndpoint.get("get", "/v1/pipelines/:id", { params: idParams, success: single(Pipeline), error: readErrors }),
  HttpApiEndpoint.post("create", "/v1/pipelines", {
    payload: PipelineInput,
    headers: idempotencyHeader,
    success: created(Pipeline),
    error: createErrors
  }),
  HttpApiEndpoint.patch("update", "/v1/pipelines/:id", {
    params: idParams,
    payload: PipelinePatch,
    headers: ifMatchHeader,
    success: single(Pipeline),
    error: writeErrors
  })
) {}
