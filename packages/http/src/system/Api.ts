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
      }),
      replicas: Schema.Array(
        Schema.Struct({
          server: Schema.String.annotate({ description: "The replica as configured (`127.0.0.1:5434`)." }),
          fit: Schema.Boolean.annotate({
            description: "Whether reads may go to it now: it answers, and lags the primary by no more than the bound."
          }),
          lag_ms: Schema.NullOr(Schema.Number).annotate({
            description:
              "How long ago the primary was first past what the replica has replayed, in milliseconds (0: it has all the primary is known to have). Null while it cannot be asked."
          }),
          replayed: Schema.NullOr(Schema.String).annotate({
            description: "The position it has replayed up to, as `Dealstream-Position` writes positions. Null while it cannot be asked."
          }),
          served: Schema.Number.annotate({ description: "Statements it served for reads since the host started." }),
          reason: Schema.NullOr(Schema.String).annotate({ description: "Why it is not fit, in a few words; null when it is." })
        })
      ).annotate({ description: "The read replicas (DEALSTREAM_READ_URLS), in the order configured; empty without any." })
    }),
    error: Unavailable
  }).annotate(
    OpenApi.Description,
    "The host's storage (PostgreSQL, or memory) answers a ping; 503 `unavailable` while the database cannot be reached, or while no primary is found among several database hosts."
  ),
  HttpApiEndpoint.get("openapi", "/v1/openapi.json").annotate(OpenApi.Exclude, true)
) {}
