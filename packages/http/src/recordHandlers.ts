import type { IfMatch, RequestContext, Versioned } from "@dealstream/core"
import type { HttpServerRequest } from "effect/http"
import { Effect } from "effect"
import { Caller } from "./auth/Authentication.js"
import type { IdempotentRepliesService } from "./idempotency.js"
import { readIfMatch } from "./request/ifMatch.js"
import { readJsonBody } from "./request/jsonBody.js"
import { readQuery } from "./request/queryParams.js"
import { created, locationOf, noContent, record, respond } from "./responses.js"

// The handlers every record resource shares; each group names only its engine call.

interface Request {
  readonly request: HttpServerRequest.HttpServerRequest
}

interface RecordRequest extends Request {
  readonly params: { readonly id: string }
}

/** POST of a new record: no query parameters, a JSON body, the Idempotency-Key rules, 201 + Location. */
export const createRecord = <E, E2>(
  idempotent: IdempotentRepliesService,
  collection: string,
  create: (ctx: RequestContext, body: unknown) => Effect.Effect<Versioned, E>,
  /** The record as it is now: the answer to a retry whose first answer was lost. */
  read: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, E2>
) =>
({ request }: Request) =>
  Effect.gen(function*() {
    yield* readQuery(request, [])
    const ctx = yield* Caller
    const body = yield* readJsonBody(request)
    return yield* idempotent.run(
      ctx,
      request,
      body,
      Effect.map(create(ctx, body), (versioned) => created(versioned, locationOf(collection, versioned))),
      (applied) => Effect.map(read(ctx, applied.id), (versioned) => created(versioned, locationOf(collection, versioned)))
    )
  })

/** POST …/restore of a soft-deleted record, under the Idempotency-Key rules; 200 with the record. */
export const restoreRecord = <E, E2>(
  idempotent: IdempotentRepliesService,
  restore: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, E>,
  /** The record as it is now: the answer to a retry whose first answer was lost. */
  read: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, E2>
) =>
({ params, request }: RecordRequest) =>
  Effect.gen(function*() {
    yield* readQuery(request, [])
    const ctx = yield* Caller
    return yield* idempotent.run(
      ctx,
      request,
      null,
      Effect.map(restore(ctx, params.id), (restored) => record(restored)),
      (applied) => Effect.map(read(ctx, applied.id), (current) => record(current))
    )
  })

/** PATCH or PUT of one record: a JSON body, made conditional by If-Match; 200 with the record. */
export const writeRecord = <E>(
  write: (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) => Effect.Effect<Versioned, E>
) =>
({ params, request }: RecordRequest) =>
  Effect.gen(function*() {
    yield* readQuery(request, [])
    const ctx = yield* Caller
    const ifMatch = yield* readIfMatch(request)
    const body = yield* readJsonBody(request)
    return respond(record(yield* write(ctx, params.id, body, ifMatch)))
  })

/** DELETE of one record, conditional on If-Match; 204. */
export const deleteRecord = <E>(
  remove: (ctx: RequestContext, id: string, ifMatch: IfMatch) => Effect.Effect<void, E>
) =>
({ params, request }: RecordRequest) =>
  Effect.gen(function*() {
    yield* readQuery(request, [])
    yield* remove(yield* Caller, params.id, yield* readIfMatch(request))
    return respond(noContent)
  })
