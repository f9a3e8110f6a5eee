import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { createRecord, writeRecord } from "../recordHandlers.js"
import { IdempotentReplies } from "../idempotency.js"
import { readQuery } from "../request/queryParams.js"
import { page, record, respond } from "../responses.js"

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
      .handle("get", ({ params, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          return respond(record(yield* engine.pipelines.get(yield* Caller, params.id)))
        }))
      .handleRaw("create", createRecord(idempotent, COLLECTION, engine.pipelines.create, engine.pipelines.get))
      .handleRaw("update", writeRecord(engine.pipelines.update))
  }))
