import { securedGroup } from "../documented.js"
import { recordEndpoints } from "../recordEndpoints.js"
import { conversionEndpoint, summaryEndpoint } from "../figures/Api.js"
import { Pipeline, PipelineInput, PipelinePatch } from "./schemas.js"

const pipelines = recordEndpoints({
  name: "Pipeline",
  collection: "/v1/pipelines",
  record: Pipeline,
  input: PipelineInput,
  patch: PipelinePatch,
  list: {},
  get: {}
})

export class PipelinesApi extends securedGroup(
  "pipelines",
  pipelines.list,
  pipelines.get,
  pipelines.create,
  pipelines.update,
  summaryEndpoint,
  conversionEndpoint
) {}
