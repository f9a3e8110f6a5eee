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

const COLLECTION = "/v1/contacts"

export const ContactsLive = HttpApiBuilder.group(Api, "contacts", (handlers) =>
  Effect.gen(function*() {
    const engine = yield* Engine
    const idempotent = yield* IdempotentReplies
    return handlers
      .handle("list", ({ request }) =>
        Effect.gen(function*() {
          const params = yield* readQuery(request, "all")
          return respond(page(yield* engine.contacts.list(yield* Caller, params)))
        }))
      .handle("get", ({ path, request }) =>
        Effect.gen(function*() {
          const params = yield* readQuery(request, ["expand"])
          return respond(record(yield* engine.contacts.get(yield* Caller, path.id, params["expand"] ?? null)))
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
            Effect.map(engine.contacts.create(ctx, body), (contact) => created(contact, locationOf(COLLECTION, contact)))
          )
        }))
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          const ctx = yield* Caller
          const ifMatch = yield* readIfMatch(request)
          const body = yield* readJsonBody(request)
          return respond(record(yield* engine.contacts.update(ctx, path.id, body, ifMatch)))
        }))
      .handle("delete", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          yield* engine.contacts.delete(yield* Caller, path.id, yield* readIfMatch(request))
          return respond(noContent)
        }))
      .handle("restore", ({ path, request }) =>
        Effect.gen(function*() {
          yield* readQuery(request, [])
          const ctx = yield* Caller
          return yield* idempotent.run(ctx, request, null, Effect.map(engine.contacts.restore(ctx, path.id), (contact) => record(contact)))
        }))
  }))
