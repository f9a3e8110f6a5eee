import {
  type EngineService,
  type IfMatch,
  type ListParams,
  type Page,
  type ReadError,
  type RequestContext,
  type StorageUnavailable,
  ValidationError,
  type Versioned,
  type WriteError
} from "@dealstream/core"
import type { HttpServerRequest } from "effect/http"
import { Effect, type Schema } from "effect"
import { Caller, type CallerContext } from "./auth/Authentication.js"
import { exportAnswer } from "./export/exportAnswer.js"
import type { Applied, IdempotentRepliesService } from "./idempotency.js"
import { ifMatchOf } from "./parameters.js"
import { readJsonBody } from "./request/jsonBody.js"
import { readQuery } from "./request/queryParams.js"
import { created, locationOf, noContent, page, record, type Reply, respond } from "./replies.js"

// The handlers every record resource shares; each group names only its engine call, or, for the
// standard endpoints of recordEndpoints.ts, its engine service (standardHandlers at the end).

/**
 * The engine's writes share one error type; a write made without If-Match never fails with
 * PreconditionFailed, so the endpoint neither declares nor documents a 412 for it. Should the
 * engine ever answer one anyway, that is a defect: a 500 with its cause in the log.
 */
export const unconditional = <A>(write: Effect.Effect<A, WriteError>) =>
  Effect.catchTag(write, "PreconditionFailed", (impossible) => Effect.die(impossible))

export interface Request {
  readonly request: HttpServerRequest.HttpServerRequest
}

export interface RecordRequest extends Request {
  readonly params: { readonly id: string }
}

export interface ConditionalRequest extends RecordRequest {
  /** If-Match as HttpApi decoded it (parameters.ts). */
  readonly headers: { readonly "if-match"?: IfMatch }
}

/** GET of a collection: every list parameter goes to the engine, which rejects unknown ones; 200 with the page. */
export const listRecords =
  <E>(list: (ctx: RequestContext, params: ListParams) => Effect.Effect<Page, E>) =>
  ({ request }: Request) =>
    Effect.gen(function* () {
      const query = yield* readQuery(request, "all")
      return respond(page(yield* list(yield* Caller, query)))
    })

/** GET of a collection a workspace holds a handful of (pipelines, webhooks): whole, unpaginated, no parameters. */
export const listWhole =
  <E>(list: (ctx: RequestContext) => Effect.Effect<Page, E>) =>
  ({ request }: Request) =>
    Effect.gen(function* () {
      yield* readQuery(request, [])
      return respond(page(yield* list(yield* Caller)))
    })

/** GET of a list that belongs to one record (a deal's timeline, a record's history): the engine checks the parameters. */
export const recordPage =
  <E>(list: (ctx: RequestContext, id: string, query: ListParams) => Effect.Effect<Page, E>) =>
  ({ params, request }: RecordRequest) =>
    Effect.gen(function* () {
      const query = yield* readQuery(request, "all")
      return respond(page(yield* list(yield* Caller, params.id, query)))
    })

/** GET of one record without query parameters; 200 with the record. */
export const getRecord =
  <E>(get: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, E>) =>
  ({ params, request }: RecordRequest) =>
    Effect.gen(function* () {
      yield* readQuery(request, [])
      return respond(record(yield* get(yield* Caller, params.id)))
    })

/**
 * GET of one record with `expand`: the record now. A record type that keeps its past (`getAsOf`)
 * also takes `as_of`: the record as it was then; both at once is 400 at as_of.
 */
export const getExpandable =
  (
    get: (ctx: RequestContext, id: string, expand: string | null) => Effect.Effect<Versioned, ReadError>,
    getAsOf?: (ctx: RequestContext, id: string, asOf: string) => Effect.Effect<Versioned, ReadError>
  ) =>
  ({ params, request }: RecordRequest) =>
    Effect.gen(function* () {
      const query = yield* readQuery(request, getAsOf === undefined ? ["expand"] : ["expand", "as_of"])
      const ctx = yield* Caller
      if (getAsOf === undefined || query["as_of"] === undefined) return respond(record(yield* get(ctx, params.id, query["expand"] ?? null)))
      if (query["expand"] !== undefined) return yield* ValidationError.at("as_of", "cannot be combined with expand")
      return respond(record(yield* getAsOf(ctx, params.id, query["as_of"])))
    })

/**
 * A POST with a JSON body and no query, under the Idempotency-Key rules: `reply` makes the answer
 * from the caller and the body; `again` makes it for a retry whose first answer was lost.
 */
export const postedJson = <E, E2 = never>(
  idempotent: IdempotentRepliesService,
  request: HttpServerRequest.HttpServerRequest,
  reply: (ctx: CallerContext, body: unknown) => Effect.Effect<Reply, E>,
  again?: (ctx: CallerContext, applied: Applied) => Effect.Effect<Reply, E2>,
  options?: Parameters<IdempotentRepliesService["run"]>[5]
) =>
  Effect.gen(function* () {
    yield* readQuery(request, [])
    const ctx = yield* Caller
    const body = yield* readJsonBody(request)
    return yield* idempotent.run(
      ctx,
      request,
      body,
      (claimed) => reply(claimed, body),
      again === undefined ? undefined : (applied) => again(ctx, applied),
      options
    )
  })

/**
 * A POST with no body and no query (a restore, a replay), under the Idempotency-Key rules: `reply`
 * makes the answer from the caller; `again` makes it for a retry whose first answer was lost.
 */
export const postedAction = <E, E2 = never>(
  idempotent: IdempotentRepliesService,
  request: HttpServerRequest.HttpServerRequest,
  reply: (ctx: RequestContext) => Effect.Effect<Reply, E>,
  again?: (ctx: RequestContext, applied: Applied) => Effect.Effect<Reply, E2>
) =>
  Effect.gen(function* () {
    yield* readQuery(request, [])
    const ctx = yield* Caller
    return yield* idempotent.run(ctx, request, null, reply, again === undefined ? undefined : (applied) => again(ctx, applied))
  })

/** POST of a new record: no query parameters, a JSON body, the Idempotency-Key rules, 201 + Location. */
export const createRecord =
  (
    idempotent: IdempotentRepliesService,
    collection: string,
    create: (ctx: RequestContext, body: unknown) => Effect.Effect<Versioned, WriteError>,
    /** The record as it is now: the answer to a retry whose first answer was lost. */
    read: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, ReadError>
  ) =>
  ({ request }: Request) =>
    postedJson(
      idempotent,
      request,
      (ctx, body) => Effect.map(unconditional(create(ctx, body)), (versioned) => created(versioned, locationOf(collection, versioned))),
      (ctx, applied) => Effect.map(read(ctx, applied.id), (versioned) => created(versioned, locationOf(collection, versioned)))
    )

/** POST …/restore of a soft-deleted record, under the Idempotency-Key rules; 200 with the record. */
export const restoreRecord =
  (
    idempotent: IdempotentRepliesService,
    restore: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, WriteError>,
    /** The record as it is now: the answer to a retry whose first answer was lost. */
    read: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, ReadError>
  ) =>
  ({ params, request }: RecordRequest) =>
    postedAction(
      idempotent,
      request,
      (ctx) => Effect.map(unconditional(restore(ctx, params.id)), (restored) => record(restored)),
      (ctx, applied) => Effect.map(read(ctx, applied.id), (current) => record(current))
    )

/** PATCH or PUT of one record: a JSON body, made conditional by If-Match; 200 with the record. */
export const writeRecord =
  <E>(write: (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) => Effect.Effect<Versioned, E>) =>
  ({ headers, params, request }: ConditionalRequest) =>
    Effect.gen(function* () {
      yield* readQuery(request, [])
      const ctx = yield* Caller
      const body = yield* readJsonBody(request)
      return respond(record(yield* write(ctx, params.id, body, ifMatchOf(headers))))
    })

/** DELETE of one record, conditional on If-Match; 204. */
export const deleteRecord =
  <E>(remove: (ctx: RequestContext, id: string, ifMatch: IfMatch) => Effect.Effect<void, E>) =>
  ({ headers, params, request }: ConditionalRequest) =>
    Effect.gen(function* () {
      yield* readQuery(request, [])
      yield* remove(yield* Caller, params.id, ifMatchOf(headers))
      return respond(noContent)
    })

/** What a record type's export needs: the engine, and for CSV its schema's fields and its custom fields' object (null: none). */
export interface ExportedAs {
  readonly engine: Pick<EngineService, "exportRecords" | "customFields">
  readonly object: string | null
  readonly record: Schema.Top
}

/** A record type's engine calls behind the standard endpoints (recordEndpoints.ts). */
export interface StandardRecordCalls {
  readonly list: (ctx: RequestContext, params: ListParams) => Effect.Effect<Page, ValidationError | StorageUnavailable>
  readonly create: (ctx: RequestContext, body: unknown) => Effect.Effect<Versioned, WriteError>
  readonly update: (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) => Effect.Effect<Versioned, WriteError>
  readonly delete: (ctx: RequestContext, id: string, ifMatch: IfMatch) => Effect.Effect<void, WriteError>
  readonly restore: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, WriteError>
  readonly history: (ctx: RequestContext, id: string, params: ListParams) => Effect.Effect<Page, ReadError>
}

/**
 * The handlers of a record resource's list, create, update, delete, restore and history, over its
 * engine calls; `read` is the record as it is now (a GET without parameters), the answer to a
 * create's or a restore's retry whose first answer was lost. Create and update read their body
 * themselves: `handleRaw`.
 */
export const standardHandlers = (
  idempotent: IdempotentRepliesService,
  collection: string,
  calls: StandardRecordCalls,
  read: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, ReadError>,
  exported: ExportedAs
) => ({
  list: listRecords(calls.list),
  export: exportAnswer(calls.list, exported),
  create: createRecord(idempotent, collection, calls.create, read),
  update: writeRecord(calls.update),
  delete: deleteRecord(calls.delete),
  restore: restoreRecord(idempotent, calls.restore, read),
  history: recordPage(calls.history)
})
