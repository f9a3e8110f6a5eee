import { Engine, ScopeNotGranted, type Versioned } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect, Result } from "effect"
import type { ServedApi } from "../Api.js"
import { ApiKeys } from "../auth/ApiKeys.js"
import { Caller, type CallerContext } from "../auth/Authentication.js"
import { keySha256, newApiKey } from "../auth/newKey.js"
import { Forbidden, IdempotencyConflict } from "../errors/HttpErrors.js"
import { IdempotentReplies } from "../idempotency.js"
import { ifMatchOf } from "../parameters.js"
import { getRecord, listWhole, postedJson, type ConditionalRequest, type Request } from "../recordHandlers.js"
import { readJsonBody } from "../request/jsonBody.js"
import { readQuery } from "../request/queryParams.js"
import { created, locationOf, noContent, record, respond } from "../replies.js"

const COLLECTION = "/v1/api-keys"

/** A key may hand out only scopes it holds: 403 `forbidden` naming the one it lacks, as a missing route scope is. */
const forbidden = <A, E, R>(effect: Effect.Effect<A, E | ScopeNotGranted, R>): Effect.Effect<A, E | Forbidden, R> =>
  Effect.mapError(effect, (error): E | Forbidden =>
    error instanceof ScopeNotGranted ? new Forbidden({ message: error.message, scope: error.scope }) : (error as E)
  )

export const ApiKeysLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "apiKeys", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const keys = yield* ApiKeys
      const idempotent = yield* IdempotentReplies

      /**
       * Makes the key here, so that the engine only ever sees its digest; a key whose id (its
       * digest's first 12 hex digits) is taken already is thrown away for another.
       */
      const make = (ctx: CallerContext, body: unknown) =>
        Effect.gen(function* () {
          for (let attempt = 1; ; attempt++) {
            const key = newApiKey()
            const made = yield* Effect.result(forbidden(engine.apiKeys.createFor(ctx, body, keySha256(key), ctx.key)))
            if (Result.isSuccess(made)) {
              const shown: Versioned = { data: { ...made.success.data, key }, version: made.success.version }
              return created(shown, locationOf(COLLECTION, made.success))
            }
            if (made.failure._tag !== "Conflict" || attempt === 3) return yield* Effect.fail(made.failure)
          }
        })

      return handlers
        .handle("list", listWhole(engine.apiKeys.listFor))
        .handle("get", getRecord(engine.apiKeys.get))
        .handleRaw("create", ({ request }: Request) =>
          postedJson(
            idempotent,
            request,
            make,
            // The answer held the key, which is stored nowhere: it cannot be given again.
            (_ctx, applied) =>
              Effect.fail(
                new IdempotencyConflict({
                  message:
                    `this Idempotency-Key made the API key ${applied.id}, whose key was shown only in that answer; ` +
                    "revoke it (DELETE /v1/api-keys/{id}) and make another"
                })
              ),
            { storeAnswer: false }
          )
        )
        .handleRaw("update", ({ headers, params, request }: ConditionalRequest) =>
          Effect.gen(function* () {
            yield* readQuery(request, [])
            const ctx = yield* Caller
            const body = yield* readJsonBody(request)
            const updated = yield* forbidden(engine.apiKeys.update(ctx, params.id, body, ifMatchOf(headers), ctx.key))
            yield* keys.forget(params.id)
            return respond(record(updated))
          })
        )
        .handle("delete", ({ headers, params, request }: ConditionalRequest) =>
          Effect.gen(function* () {
            yield* readQuery(request, [])
            const ctx = yield* Caller
            yield* engine.apiKeys.delete(ctx, params.id, ifMatchOf(headers), ctx.key)
            yield* keys.forget(params.id)
            return respond(noContent)
          })
        )
    })
  )
