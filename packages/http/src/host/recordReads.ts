import { type Json, ReadRoute, type RequestContext } from "@dealstream/core"
import { type Context, Effect, Exit, Result } from "effect"
import type { GateService } from "../auth/Gate.js"
import { READ_AFTER } from "../auth/readYourWrites.js"
import { queryParamsOf } from "../request/queryParams.js"
import { attachedRequestInfo } from "../request/RequestInfo.js"
import type { Taker } from "./divertRequests.js"
import { type FrontRecord, screenAtFront, writeJson } from "./frontRecords.js"
import { pathOf } from "./requestFront.js"

// The characters ids are made of; anything else (an escape, a dot) goes the endpoint's way.
const ID = /^[a-z]+_[0-9a-z]{1,100}$/

/** The engine's call that answers a read, and the record's version for its ETag (null: a list page, none). */
type Call = (ctx: RequestContext) => Effect.Effect<{ readonly body: Json; readonly version: number | null }, unknown>

/** The call a request target asks for, or null for a target the endpoints alone answer. */
const callOf = (reads: ReadonlyMap<string, FrontRecord>, url: string): Call | null => {
  if (!url.startsWith("/v1/")) return null
  const query = url.indexOf("?")
  const path = query < 0 ? url : url.slice(0, query)
  const slash = path.indexOf("/", 4)
  if (slash < 0) {
    // A list page: its parameters are the engine's to check, as its endpoint passes them on.
    const read = reads.get(path.slice(4))
    const params = read === undefined ? null : queryParamsOf(url, "all")
    if (read === undefined || params === null || Result.isFailure(params)) return null
    return (ctx) =>
      Effect.map(read.list(ctx, params.success), (page) => ({ body: { data: page.data, next_cursor: page.next_cursor }, version: null }))
  }
  const read = reads.get(path.slice(4, slash))
  const id = path.slice(slash + 1)
  if (read === undefined || query >= 0 || !id.startsWith(read.prefix) || !ID.test(id)) return null
  return (ctx) => Effect.map(read.get(ctx, id), (found) => ({ body: found.data, version: found.version }))
}

/**
 * The API's most frequent requests, `GET /v1/<collection>/<id>` without a query string and a list
 * page `GET /v1/<collection>?…`, answered beside HttpApi: the gate's plain screen (Gate.ts), the
 * engine's read in one fiber, and the answer written as the endpoint writes it (status 200,
 * `application/json`, a record's ETag, the RateLimit headers). HttpApi's per-request machinery cost
 * two thirds of the memory host's time per GET (bench/ANALYSIS.md, issue 32).
 *
 * Only a success is answered here. Anything else goes to HttpApi's endpoint as if this were not
 * here, so every error keeps the contract's shape from its one definition: a request this does not
 * recognise (a record's GET with a query, `Dealstream-Read-After`, an id of another form, a list's
 * parameter given twice) at once; one the gate did not admit, or whose read failed, afterwards,
 * with the gate's answer kept on the RequestInfo (so no limit is charged twice) and the read made
 * again there. A 404 or a list's 400 thus reads twice; a 200, once. The endpoint's parameter
 * checks only repeat the engine's (parameters.ts), so what the engine answers, they let through.
 */
export const recordReads = (gate: GateService, reads: ReadonlyMap<string, FrontRecord>, context: Context.Context<never>): Taker => {
  const run = Effect.runCallbackWith(context)
  return (request, response, pass) => {
    const url = request.url
    if (request.method !== "GET" || url === undefined || request.headers[READ_AFTER] !== undefined) return false
    const call = callOf(reads, url)
    const info = call === null ? undefined : attachedRequestInfo(request)
    if (call === null || info === undefined) return false
    const admitted = screenAtFront(gate, request, pathOf(url), info, pass)
    if (admitted === null) return true
    const { caller, keyId, limits } = admitted
    const route: ReadRoute = { after: gate.lastWrites.after(keyId), server: null }
    // The client went away before the read ended: nobody reads an answer, as under HttpApi.
    let cancel: (() => void) | null = null
    const gone = () => cancel?.()
    response.once("close", gone)
    cancel = run(Effect.provideService(call(caller), ReadRoute, route), {
      onExit: (exit) => {
        response.off("close", gone)
        if (Exit.isSuccess(exit)) {
          const { body, version } = exit.value
          writeJson(response, info.id, 200, { ...limits, ...(version === null ? {} : { etag: `"${version}"` }) }, body)
        } else if (!response.destroyed) pass()
      }
    })
    return true
  }
}
