import {
  activityFields,
  companyFields,
  contactFields,
  dealFields,
  type EngineService,
  type Json,
  type ListParams,
  type Page,
  type ReadError,
  type RecordFields,
  type RecordTypePlugin,
  type RequestContext,
  type StorageUnavailable,
  type ValidationError,
  type Versioned,
  type WriteError
} from "@dealstream/core"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Effect } from "effect"
import { type CallerContext, callerOf } from "../auth/Authentication.js"
import type { GateService, Knock } from "../auth/Gate.js"
import { rateLimitHeaders, type RequestInfoShape } from "../request/RequestInfo.js"

/** A record type's calls as its endpoints make them: one record without query parameters, a list page, a create. */
export interface FrontRecord {
  /** Its collection's path, `/v1/contacts`. */
  readonly collection: string
  /** Its ids' prefix with the underscore (`con_`). */
  readonly prefix: string
  readonly get: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, ReadError>
  readonly list: (ctx: RequestContext, params: ListParams) => Effect.Effect<Page, ValidationError | StorageUnavailable>
  readonly create: (ctx: RequestContext, body: unknown) => Effect.Effect<Versioned, WriteError>
}

const prefixOf = (fields: RecordFields): string => `${fields.standard.find((field) => field.name === "id")!.idPrefix}_`

/** The record types the front answers for, by collection: the built-in ones and the plug-ins' the engine serves. */
export const frontRecordsOf = (engine: EngineService, plugins: ReadonlyArray<RecordTypePlugin>): ReadonlyMap<string, FrontRecord> => {
  const record = (plural: string, prefix: string, calls: Omit<FrontRecord, "collection" | "prefix">): [string, FrontRecord] => [
    plural,
    { collection: `/v1/${plural}`, prefix, ...calls }
  ]
  const { activities, companies, contacts, deals } = engine
  return new Map<string, FrontRecord>([
    record("contacts", prefixOf(contactFields), {
      get: (ctx, id) => contacts.get(ctx, id, null),
      list: contacts.list,
      create: contacts.create
    }),
    record("companies", prefixOf(companyFields), {
      get: (ctx, id) => companies.get(ctx, id, null),
      list: companies.list,
      create: companies.create
    }),
    record("deals", prefixOf(dealFields), { get: (ctx, id) => deals.get(ctx, id, null), list: deals.list, create: deals.create }),
    record("activities", prefixOf(activityFields), activities),
    ...plugins.flatMap((plugin): Array<[string, FrontRecord]> => {
      const service = engine.records.get(plugin.name)
      return service === undefined ? [] : [record(plugin.plural, `${plugin.prefix}_`, service)]
    })
  ])
}

/** What the gate reads of a Node request. */
const knockOf = (request: IncomingMessage, path: string): Knock => {
  const forwarded = request.headers["x-forwarded-for"]
  return {
    method: request.method ?? "GET",
    path,
    authorization: request.headers.authorization,
    remoteAddress: request.socket.remoteAddress,
    forwardedFor: Array.isArray(forwarded) ? forwarded.join(", ") : forwarded,
    connection: request.socket
  }
}

/** A request the gate admitted at the front: who it speaks as, and the RateLimit headers its answer carries. */
export interface FrontCaller {
  readonly caller: CallerContext
  /** Its key's id: the key's last write, which its reads must see, is kept by it (readYourWrites.ts). */
  readonly keyId: string
  readonly limits: Readonly<Record<string, string>>
}

/**
 * Screens a request the front means to answer (`path` without its query string). The gate's answer
 * stays on the RequestInfo, for the endpoint to take as it is should the request be handed on, so
 * no limit is charged twice. Null, and the request handed on with `pass`, unless it was admitted.
 */
export const screenAtFront = (
  gate: GateService,
  request: IncomingMessage,
  path: string,
  info: RequestInfoShape,
  pass: () => void
): FrontCaller | null => {
  const screened = gate.screen(knockOf(request, path), info, Date.now())
  info.screened = screened
  if (screened._tag === "Admitted")
    return {
      caller: callerOf(screened.owner, info.id),
      keyId: screened.owner.keyId,
      limits: rateLimitHeaders(screened.shown)
    }
  pass()
  return null
}

/**
 * An answer as the endpoints write it (replies.ts' `respond`): the request's id, `headers`, then the
 * JSON body's. All in one writeHead, with nothing set on the response before (requestFront.ts leaves
 * the id to the answer), so Node takes them as they are instead of setting each in turn.
 */
export const writeJson = (
  response: ServerResponse,
  requestId: string,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: Json
): void => {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    "x-request-id": requestId,
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text)
  })
  response.end(text)
}
