import { Engine, positionToken } from "@dealstream/core"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder, OpenApi } from "effect/http-api"
import { Effect, Layer } from "effect"
import type { ServedApi } from "../Api.js"
import { DocsLive } from "../docs/DocsLive.js"

const SystemHandlers = (api: ServedApi) =>
  HttpApiBuilder.group(api, "system", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const document = HttpServerResponse.jsonUnsafe(OpenApi.fromApi(api))
      return handlers
        .handle("health", () => Effect.succeed({ status: "ok" as const }))
        .handle("ready", () =>
          Effect.map(engine.ping, ({ primary, replicas }) => ({
            status: "ready" as const,
            primary,
            replicas: replicas.map((replica) => ({
              server: replica.server,
              fit: replica.fit,
              lag_ms: replica.lagMillis,
              replayed: replica.replayed === null ? null : positionToken(replica.replayed),
              served: replica.served,
              reason: replica.reason
            }))
          }))
        )
        .handle("openapi", () => Effect.succeed(document))
    })
  )

/**
 * The probes, the OpenAPI document and the reference page (DocsLive mounts its route on the same
 * router), so that wherever ApiLive is served, /docs is too; both describe `api`, the API served.
 */
export const SystemLive = (api: ServedApi) => Layer.merge(SystemHandlers(api), DocsLive(api))
