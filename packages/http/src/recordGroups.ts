import type { Page, ProjectionFailed, ReadError, RecordBatch, RequestContext, StorageUnavailable, Versioned } from "@dealstream/core"
import type { HttpApiBuilder, HttpApiEndpoint } from "effect/http-api"
import type { Effect } from "effect"
import type { Caller } from "./auth/Authentication.js"
import { batchRecords } from "./batch.js"
import type { IdempotentRepliesService } from "./idempotency.js"
import {
  createRecord,
  type ExportedAs,
  getRecord,
  listWhole,
  type StandardRecordCalls,
  standardHandlers,
  writeRecord
} from "./recordHandlers.js"

// The groups that declare recordEndpoints.ts's endpoints handle them alike. The handlers are made
// over the engine's service first, then handed to the group: made apart from the group, each is
// typed by the endpoint it handles (HandlersOf), so one that fails with an error its endpoint does
// not declare is a type error where the group is built.

/** Handlers typed by their endpoints: `Plain` ones as `handle` takes them, `Raw` ones (they read their body) as `handleRaw` does. */
type HandlersOf<Endpoints extends Record<Plain | Raw, HttpApiEndpoint.Constraint>, Plain extends string, Raw extends string> = {
  readonly [K in Plain]: HttpApiEndpoint.Handler<Endpoints[K], HttpApiEndpoint.MiddlewareError<Endpoints[K]>, Caller>
} & {
  readonly [K in Raw]: HttpApiEndpoint.HandlerRaw<Endpoints[K], HttpApiEndpoint.MiddlewareError<Endpoints[K]>, Caller>
}

/** A record type's engine service as a record resource's group serves it: the standard calls and its batch. */
export interface RecordResourceCalls extends StandardRecordCalls, RecordBatch {
  /** The record now, with what `expand` names (null: nothing); a record type without `expand` takes none. */
  readonly get: (ctx: RequestContext, id: string, expand: string | null) => Effect.Effect<Versioned, ReadError>
}

/**
 * The handlers of a record resource (contacts, companies, deals, a plug-in's): the standard ones,
 * its batch, and `get`, its GET's (getRecord, getExpandable).
 */
export const recordResourceHandlers = <Get>(
  idempotent: IdempotentRepliesService,
  collection: string,
  calls: RecordResourceCalls,
  get: Get,
  exported: ExportedAs
) => ({
  ...standardHandlers(idempotent, collection, calls, (ctx, id) => calls.get(ctx, id, null), exported),
  get,
  batch: batchRecords(idempotent, calls.batch)
})

/** The engine calls behind a collection a workspace holds a handful of (pipelines, webhooks). */
export interface WholeCollectionCalls extends Pick<StandardRecordCalls, "create" | "update"> {
  /** A pipelines' list may store the workspace's default pipeline, hence ProjectionFailed. */
  readonly list: (ctx: RequestContext) => Effect.Effect<Page, ProjectionFailed | StorageUnavailable>
  readonly get: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, ReadError>
}

/** The handlers of such a collection: listed whole (listWhole), each record read without parameters. */
export const wholeCollectionHandlers = (idempotent: IdempotentRepliesService, collection: string, calls: WholeCollectionCalls) => ({
  list: listWhole(calls.list),
  get: getRecord(calls.get),
  create: createRecord(idempotent, collection, calls.create, calls.get),
  update: writeRecord(calls.update)
})

/** The endpoints every record collection declares (recordEndpoints.ts): its list, get, create and update. */
type CollectionEndpoints = Record<"list" | "get" | "create" | "update", HttpApiEndpoint.Constraint>

/** A record collection's group with its list, get, create and update handled; the caller adds the rest. */
export const handleCollection = <R, Endpoints extends CollectionEndpoints>(
  handlers: HttpApiBuilder.Handlers<R, Endpoints>,
  records: NoInfer<HandlersOf<Endpoints, "list" | "get", "create" | "update">>
) =>
  handlers.handle("list", records.list).handle("get", records.get).handleRaw("create", records.create).handleRaw("update", records.update)

type RecordResourceEndpoints = CollectionEndpoints &
  Record<"batch" | "delete" | "restore" | "history" | "export", HttpApiEndpoint.Constraint>

/** A record resource's group with its standard endpoints and batch handled; the caller adds those of its own. */
export const handleRecordResource = <R, Endpoints extends RecordResourceEndpoints>(
  handlers: HttpApiBuilder.Handlers<R, Endpoints>,
  records: NoInfer<HandlersOf<Endpoints, "list" | "get" | "delete" | "restore" | "history" | "export", "batch" | "create" | "update">>
) =>
  handleCollection(handlers, records)
    .handle("export", records.export)
    .handleRaw("batch", records.batch)
    .handle("delete", records.delete)
    .handle("restore", records.restore)
    .handle("history", records.history)
