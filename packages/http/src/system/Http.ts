import { Engine } from "@dealstream/core"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { renderDocs } from "../docs/renderDocs.js"
import { OpenApi } from "@effect/platform"

export const SystemLive = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const engine = yield* Engine
    const spec = OpenApi.fromApi(Api)
    const docs = renderDocs(spec)
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () => Effect.as(engine.ping, { status: "ready" as const }))
      .handle("openapi", () => Effect.succeed(HttpServerResponse.unsafeJson(spec)))
      .handle("docs", () => Effect.succeed(HttpServerResponse.html(docs)))
  }))
