import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { IdempotentReplies } from "../idempotency.js"
import { readIfMatch } from "../request/ifMatch.js"
import { readJsonBody } from "../request/jsonBody.js"
import { readQuery } from "../request/queryParams.js"
import { created, locationOf, noContent, page, record, respond } from "../responses.js"

const COLLECTION = "/v1/deals"

export const DealsLive = HttpApiBuilder.group(Api, "deals", (handlers) =>
  Effect.gen(function*() {
    const engine = yield* Engine
    const idempotent = yield* IdempotentReplies
    return handlers
      .handle("list", ({ request }) =>
        Effect.gen(function*() {
          const params = yield* readQuery(request, "all")
          return respond(page(yield* engine.deals.list(yield* Caller, params)))
        }))
      .handle("get", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          return respond(record(yield* engine.deals.get(yield* Caller, path.id)))
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
            Effect.map(engine.deals.create(ctx, body), (deal) => created(deal, locationOf(COLLECTION, deal)))
          )
        }))
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          const ctx = yield* Caller
          const ifMatch = yield* readIfMatch(request)
          const body = yield* readJsonBody(request)
          return respond(record(yield* engine.deals.update(ctx, path.id, body, ifMatch)))
        }))
      .handleRaw("moveStage", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          const ctx = yield* Caller
          const ifMatch = yield* readIfMatch(request)
          const body = yield* readJsonBody(request)
          return respond(record(yield* engine.deals.moveStage(ctx, path.id, body, ifMatch)))
        }))
      .handle("delete", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          yield* engine.deals.delete(yield* Caller, path.id, yield* readIfMatch(request))
          return respond(noContent)
        }))
      .handle("restore", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          const ctx = yield* Caller
          return yield* idempotent.run(ctx, request, null, Effect.map(engine.deals.restore(ctx, path.id), (deal) => record(deal)))
        }))
      .handle("timeline", ({ path, request }) =>
        Effect.gen(function*() {
          const params = yield* readQuery(request, "all")
          return respond(page(yield* engine.deals.timeline(yield* Caller, path.id, params)))
        }))
  }))
