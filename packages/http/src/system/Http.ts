import { Engine } from "@dealstream/core"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder, OpenApi } from "effect/http-api"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { renderDocs } from "../docs/renderDocs.js"

export const SystemLive = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const engine = yield* Engine
    const spec = OpenApi.fromApi(Api)
    const document = HttpServerResponse.jsonUnsafe(spec)
    const docs = HttpServerResponse.html(renderDocs(spec))
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () => Effect.as(engine.ping, { status: "ready" as const }))
      .handle("openapi", () => Effect.succeed(document))
      .handle("docs", () => Effect.succeed(docs))
  }))
