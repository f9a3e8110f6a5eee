import { Engine } from "@dealstream/core"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder, OpenApi } from "effect/http-api"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { DocsLive } from "../docs/DocsLive.js"

const SystemHandlers = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const document = HttpServerResponse.jsonUnsafe(OpenApi.fromApi(Api))
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () => Effect.as(engine.ping, { status: "ready" as const }))
      .handle("openapi", () => Effect.succeed(document))
  })
)

/**
 * The probes, the OpenAPI document and the reference page (DocsLive mounts its route on the same
 * router), so that wherever ApiLive is served, /docs is too.
 */
export const SystemLive = Layer.merge(SystemHandlers, DocsLive)
