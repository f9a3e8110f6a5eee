import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import type { Schema } from "effect"
import {
  actionErrors,
  batchErrors,
  created,
  createErrors,
  deleteErrors,
  listErrors,
  NoContent,
  readErrors,
  replayable200,
  restored,
  single,
  writeErrors
} from "./answerSchemas.js"
import { MergedRecord } from "./errors/HttpErrors.js"
import { batchDescription, batchInput, BatchResults } from "./batch.js"
import { pageOf } from "./documented.js"
import { historyDescription, HistoryEntry } from "./history/schemas.js"
import { idempotencyHeader, idParams, ifMatchHeader, pagingParams } from "./parameters.js"

// The endpoints every record resource declares alike; recordHandlers.ts handles them.

/** A record resource, as its endpoints are declared from it. */
export interface RecordResource<
  Collection extends `/v1/${string}`,
  Record extends Schema.Top,
  Input extends Schema.Top,
  Patch extends Schema.Top,
  ListQuery extends Schema.Struct.Fields,
  GetQuery extends Schema.Struct.Fields
> {
  /** The record type's schema name: `Contact` names ContactPage and ContactBatch. */
  readonly name: string
  /** The record type's own name, as its events and the history call it (`contact`); the schema name lower-cased when absent. */
  readonly type?: string
  /** `/v1/contacts`: the collection's path, below which each record is `/:id`. */
  readonly collection: Collection
  /** The record as the API answers it, and the bodies of a create and of a PATCH (documented only, see documented.ts). */
  readonly record: Record
  readonly input: Input
  readonly patch: Patch
  readonly list: { readonly query?: ListQuery; readonly description?: string }
  readonly get: { readonly query?: GetQuery; readonly description?: string }
  /** Its records merge (merge.ts): a request on one of its merged ids answers 308 `merged`. */
  readonly merges?: boolean
}

/**
 * A record resource's standard endpoints, one each: its group lists those it has, in the order the
 * OpenAPI document shows them, with any endpoints of its own in between.
 */
export const recordEndpoints = <
  const Collection extends `/v1/${string}`,
  Record extends Schema.Top,
  Input extends Schema.Top,
  Patch extends Schema.Top,
  ListQuery extends Schema.Struct.Fields = never,
  GetQuery extends Schema.Struct.Fields = never
>(
  resource: RecordResource<Collection, Record, Input, Patch, ListQuery, GetQuery>
) => {
  const { collection, record } = resource
  // Typed as if every record type merged: a declared error a handler never fails with costs nothing; the document shows it where it is.
  const redirected = <const L extends ReadonlyArray<Schema.Top>>(errors: L) =>
    (resource.merges === true ? [...errors, MergedRecord] : errors) as unknown as readonly [...L, typeof MergedRecord]
  const one = `${collection}/:id` as const
  const list = HttpApiEndpoint.get("list", collection, {
    query: resource.list.query,
    success: pageOf(record, `${resource.name}Page`),
    error: listErrors
  })
  const get = HttpApiEndpoint.get("get", one, {
    params: idParams,
    query: resource.get.query,
    success: single(record),
    error: redirected(readErrors)
  })
  return {
    list: resource.list.description === undefined ? list : list.annotate(OpenApi.Description, resource.list.description),
    get: resource.get.description === undefined ? get : get.annotate(OpenApi.Description, resource.get.description),
    create: HttpApiEndpoint.post("create", collection, {
      payload: resource.input,
      headers: idempotencyHeader,
      success: created(record),
      error: createErrors
    }),
    update: HttpApiEndpoint.patch("update", one, {
      params: idParams,
      payload: resource.patch,
      headers: ifMatchHeader,
      success: single(record),
      error: redirected(writeErrors)
    }),
    delete: HttpApiEndpoint.delete("delete", one, {
      params: idParams,
      headers: ifMatchHeader,
      success: NoContent,
      error: redirected(deleteErrors)
    }),
    restore: HttpApiEndpoint.post("restore", `${one}/restore`, {
      params: idParams,
      headers: idempotencyHeader,
      success: restored(record),
      error: redirected(actionErrors)
    }),
    export: HttpApiEndpoint.get("export", `${collection}/export`, {
      query: resource.list.query,
      success: HttpApiSchema.StreamUint8Array({ contentType: ["application/x-ndjson", "text/csv"] }),
      error: listErrors
    }).annotate(OpenApi.Description, exportDescription(resource.type ?? resource.name.toLowerCase())),
    history: HttpApiEndpoint.get("history", `${one}/history`, {
      params: idParams,
      query: pagingParams,
      success: pageOf(HistoryEntry, "HistoryPage"),
      error: readErrors
    }).annotate(OpenApi.Description, historyDescription(resource.type ?? resource.name.toLowerCase()))
  }
}

const exportDescription = (type: string) =>
  `Every live ${type} its list would show for the same parameters (the list's filters and \`filter\`; not \`limit\`, \`cursor\` or \`sort\`), ` +
  "from one consistent state, in the list's order (created_at, then id), streamed: JSON lines (`application/x-ndjson`, the default, " +
  "one record per line as the list shows it) or CSV with `Accept: text/csv` (a header row of the standard fields, then the custom " +
  "fields' keys sorted; arrays of ids joined by `;`; null empty). `Dealstream-Feed-Cursor` is the change feed's position of that state " +
  "(absent while the workspace has no event): `GET /v1/events?after=<it>` gives exactly the changes the export does not hold. " +
  "A failure once the body has started ends it early, without its last line."

/** POST …/batch: creates and updates, and upserts on `upsertOn` where the record type has a unique key. */
export const batchEndpoint = <const Collection extends `/v1/${string}`>(
  resource: { readonly name: string; readonly collection: Collection },
  upsertOn: string | null
) =>
  HttpApiEndpoint.post("batch", `${resource.collection}/batch`, {
    payload: batchInput(resource.name, `${resource.name}Batch`, upsertOn),
    headers: idempotencyHeader,
    success: replayable200(BatchResults),
    error: batchErrors
  }).annotate(OpenApi.Description, batchDescription(resource.collection.slice("/v1/".length), upsertOn))
