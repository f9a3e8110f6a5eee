import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Unavailable } from "../errors/HttpErrors.js"

/**
 * Probes and the OpenAPI document: no authentication, no rate limit. The reference page at /docs
 * is served next to them (system/Http.ts), by Scalar rather than by an endpoint of this group.
 */
export class SystemApi extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("health", "/healthz", { success: Schema.Struct({ status: Schema.Literal("ok") }) }).annotate(
    OpenApi.Description,
    "The process is up."
  ),
  HttpApiEndpoint.get("ready", "/readyz", { success: Schema.Struct({ status: Schema.Literal("ready") }), error: Unavailable }).annotate(
    OpenApi.Description,
    "The host's storage (PostgreSQL, or memory) answers a ping; 503 `unavailable` while the database cannot be reached."
  ),
  HttpApiEndpoint.get("openapi", "/v1/openapi.json").annotate(OpenApi.Exclude, true)
) {}
