import { StorageUnavailable } from "@dealstream/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { asErrorBody } from "../errors/ErrorBody.js"

/** Probes and documentation: no authentication, no rate limit. */
export class SystemApi extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("health", "/healthz")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ok") }))
      .annotate(OpenApi.Description, "The process is up.")
  )
  .add(
    HttpApiEndpoint.get("ready", "/readyz")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ready") }))
      .addError(asErrorBody(StorageUnavailable), { status: 503 })
      .annotate(OpenApi.Description, "The host's storage (PostgreSQL, or memory) answers a ping; 503 `unavailable` while the database cannot be reached.")
  )
  .add(HttpApiEndpoint.get("openapi", "/v1/openapi.json").annotate(OpenApi.Exclude, true))
  .add(HttpApiEndpoint.get("docs", "/docs").annotate(OpenApi.Exclude, true))
{}
