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
  HttpApiEndpoint.get("ready", "/readyz", {
    success: Schema.Struct({
      status: Schema.Literal("ready"),
      primary: Schema.NullOr(Schema.String).annotate({
        description:
          "The PostgreSQL server that takes the writes now, as it names itself (`127.0.0.1:5433`); after a failover, the promoted one. Null on memory storage."
      })
    }),
    error: Unavailable
  }).annotate(
    OpenApi.Description,
    "The host's storage (PostgreSQL, or memory) answers a ping; 503 `unavailable` while the database cannot be reached, or while no primary is found among several database hosts."
  ),
  HttpApiEndpoint.get("openapi", "/v1/openapi.json").annotate(OpenApi.Exclude, true)
) {}
