import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { IdempotentReplies } from "../idempotency.js"
import { readIfMatch } from "../request/ifMatch.js"
import { readJsonBody } from "../request/jsonBody.js"
import { readQuery } from "../request/queryParams.js"
import { created, locationOf, page, record, respond } from "../responses.js"

const COLLECTION = "/v1/pipelines"

export const PipelinesLive = HttpApiBuilder.group(Api, "pipelines", (handlers) =>
  Effect.gen(function*() {
    const engine = yield* Engine
    const idempotent = yield* IdempotentReplies
    return handlers
      .handle("list", ({ request }) =>
        Effect.gen(function*() {
          // A workspace has a handful of pipelines: the engine returns them all, unpaginated.
          yield* readQuery(request, [])
          return respond(page(yield* engine.pipelines.list(yield* Caller)))
        }))
      .handle("get", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          return respond(record(yield* engine.pipelines.get(yield* Caller, path.id)))
        }))
      .handleRaw("create", ({ request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          const ctx = yield* Caller
          const body = yield* readJsonBody(request)
          return yield* idempotent.run(
            ctx,
            request,
            body,
            Effect.map(engine.pipelines.create(ctx, body), (pipeline) => created(pipeline, locationOf(COLLECTION, pipeline)))
          )
        }))
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          const ctx = yield* Caller
          const ifMatch = yield* readIfMatch(request)
          const body = yield* readJsonBody(request)
          return respond(record(yield* engine.pipelines.update(ctx, path.id, body, ifMatch)))
        }))
  }))
