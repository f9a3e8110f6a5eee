import { positionToken, type Versioned, WrittenAt } from "@dealstream/core"
import { type Context, Effect, Exit, Option } from "effect"
import type { GateService } from "../auth/Gate.js"
import { positionOfWrite, POSITION, READ_AFTER } from "../auth/readYourWrites.js"
import { errorReply } from "../errors/errorResponse.js"
import { unconditional } from "../recordHandlers.js"
import { locationOf } from "../replies.js"
import { bodyRefusal, hasBody, readJsonFrom } from "../request/jsonBody.js"
import { attachedRequestInfo } from "../request/RequestInfo.js"
import type { Taker } from "./divertRequests.js"
import { type FrontRecord, screenAtFront, writeJson } from "./frontRecords.js"

/**
 * `POST /v1/<collection>`, a create without an Idempotency-Key, answered beside HttpApi as
 * recordReads.ts answers reads: the gate's screen, the body read and checked by the endpoint's rules
 * (request/jsonBody.ts), the engine's create in one fiber, and the endpoint's answer (201, Location,
 * ETag, Dealstream-Position, the RateLimit headers).
 *
 * A request goes to HttpApi's endpoint at once when it has a query string, an Idempotency-Key (its
 * retries are answered from the stored answer, idempotency.ts), `Dealstream-Read-After`, a chunked
 * or `Expect`ed body, or a body the endpoint refuses unread (415, a declared 413); and once screened
 * when the gate refuses it. Past that the body is read, so nothing can be handed on: a failure is
 * answered here, from the same table every error answer comes from (errors/errorResponse.ts). The
 * write runs to its end even when the client goes away, as the endpoint's does.
 */
export const recordCreates = (gate: GateService, records: ReadonlyMap<string, FrontRecord>, context: Context.Context<never>): Taker => {
  const run = Effect.runCallbackWith(context)
  return (request, response, pass) => {
    const { headers, url } = request
    if (request.method !== "POST" || url === undefined || !url.startsWith("/v1/") || url.includes("?")) return false
    const record = url.indexOf("/", 4) < 0 ? records.get(url.slice(4)) : undefined
    if (record === undefined) return false
    if (headers["idempotency-key"] !== undefined || headers[READ_AFTER] !== undefined) return false
    if (headers["transfer-encoding"] !== undefined || headers.expect !== undefined) return false
    const body = hasBody(headers)
    if (body && bodyRefusal(headers) !== null) return false
    const info = attachedRequestInfo(request)
    if (info === undefined) return false
    const admitted = screenAtFront(gate, request, url, info, pass)
    if (admitted === null) return true
    const { caller, keyId, limits } = admitted
    const written: WrittenAt = { position: null }
    const create = Effect.gen(function* () {
      const input = body ? yield* readJsonFrom(request) : null
      const made: Versioned = yield* Effect.provideService(unconditional(record.create(caller, input)), WrittenAt, written)
      return { made, position: yield* positionOfWrite(gate.engine, written) }
    })
    run(create, {
      onExit: (exit) => {
        if (Exit.isSuccess(exit)) {
          const { made, position } = exit.value
          const answered: Record<string, string> = { ...limits, location: locationOf(record.collection, made), etag: `"${made.version}"` }
          // The storage could not say where it is now: the write stands, without a position to read after.
          if (Option.isSome(position)) {
            gate.lastWrites.wrote(keyId, position.value)
            answered[POSITION] = positionToken(position.value)
          }
          return writeJson(response, info.id, 201, answered, made.data)
        }
        Option.match(errorReply(exit.cause, info.id), {
          // Only interrupted: nobody is there to read an answer.
          onNone: () => response.destroy(),
          onSome: (failed) => {
            info.internal = failed.internal
            writeJson(response, info.id, failed.status, { ...limits, ...failed.headers }, failed.body)
          }
        })
      }
    })
    return true
  }
}
