import { Engine, ValidationError } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { IdempotentReplies } from "../idempotency.js"
import { postedJson, unconditional } from "../recordHandlers.js"
import { readQuery } from "../request/queryParams.js"
import { created, noContent, page, respond } from "../replies.js"

export const CustomFieldsLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "customFields", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const idempotent = yield* IdempotentReplies
      return handlers
        .handle("list", ({ request }) =>
          Effect.gen(function* () {
            const query = yield* readQuery(request, ["object"])
            return respond(page(yield* engine.customFields.list(yield* Caller, query["object"] ?? null)))
          })
        )
        .handleRaw("create", ({ request }) =>
          postedJson(idempotent, request, (ctx, body) =>
            // A definition is never conditional, and its stream always exists (no 412, no 404).
            Effect.map(
              Effect.catchTag(engine.customFields.create(ctx, body), ["PreconditionFailed", "NotFound"], Effect.die),
              (definition) =>
                // Definitions have no GET of their own; their address is the one DELETE takes.
                created(
                  definition,
                  `/v1/custom-fields/${encodeURIComponent(String(definition.data["object"]))}/${encodeURIComponent(
                    String(definition.data["key"])
                  )}`
                )
            )
          )
        )
        .handle("delete", ({ params, request }) =>
          Effect.gen(function* () {
            yield* readQuery(request, [])
            // The engine deletes definitions unconditionally; ignoring a precondition would be a lie.
            if (request.headers["if-match"] !== undefined) {
              return yield* ValidationError.at("If-Match", "is not supported when deleting a custom field definition")
            }
            yield* unconditional(engine.customFields.delete(yield* Caller, params.object, params.key))
            return respond(noContent)
          })
        )
    })
  )
