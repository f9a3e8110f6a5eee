import type { KeyManager, RequestContext, StorageUnavailable, ValidationError } from "@dealstream/core"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Forbidden, Invalid, RateLimited, Unauthorized, Unavailable } from "../errors/HttpErrors.js"
import type { RateDecision } from "../rateLimit/RateLimiter.js"
import { pathOf } from "../host/requestFront.js"
import { rateLimitHeaders, type RequestInfoShape, requestInfoOf } from "../request/RequestInfo.js"
import type { KeyOwner } from "./ApiKeys.js"
import { Gate, type Knock, type Screened } from "./Gate.js"
import { withPositions } from "./readYourWrites.js"

/**
 * The authenticated caller of a /v1 endpoint, in the engine's own terms (its `actor` is the key's
 * id, which every event it writes and so every history entry names), and what its key may grant
 * when it manages keys.
 */
export interface CallerContext extends RequestContext {
  readonly key: KeyManager
}

export class Caller extends Context.Service<Caller, CallerContext>()("@dealstream/http/Caller") {}

/** The caller a request admitted with `owner`'s key speaks as, at the endpoints and at the host's front alike. */
export const callerOf = (owner: KeyOwner, requestId: string): CallerContext => ({
  workspaceId: owner.workspaceId,
  requestId,
  actor: owner.keyId,
  key: { scopes: owner.scopes, configured: owner.configured }
})

export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: Caller }>()("@dealstream/http/Authentication", {
  // A stored key is looked up in the database: when it cannot be reached the answer is 503, not
  // 401 (the key may well be valid) and not 500.
  // A malformed Dealstream-Read-After is 400, before anything is read (readYourWrites.ts).
  // A key without the route's scope is 403, before the body is read (scopes.ts).
  error: [Unauthorized, Forbidden, RateLimited, Unavailable, Invalid],
  // `bearer` rather than HttpApiSecurity.bearer's `Bearer`: the scheme the OpenAPI document has
  // always named (schemes are case-insensitive; the header is read in authenticate below).
  security: { bearer: HttpApiSecurity.http({ scheme: "bearer" }) }
}) {}

/**
 * The RateLimit-* headers of a decision, on whatever answer the request gets: under the host, its
 * front sets them on the Node response; under a router of an embedder's own, a pre-response handler
 * does. Null when nothing is left to run.
 */
const showLimit = (
  info: RequestInfoShape,
  decision: RateDecision
): Effect.Effect<void, never, HttpServerRequest.HttpServerRequest> | null => {
  if (info.setHeaders !== null) {
    info.setHeaders(rateLimitHeaders(decision))
    return null
  }
  return HttpEffect.appendPreResponseHandler((_, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, rateLimitHeaders(decision)))
  )
}

/** What the gate reads of a request as Effect's router gives it. */
const knockOf = (request: HttpServerRequest.HttpServerRequest): Knock => ({
  method: request.method,
  path: pathOf(request.url),
  authorization: request.headers["authorization"],
  remoteAddress: Option.getOrUndefined(request.remoteAddress),
  forwardedFor: request.headers["x-forwarded-for"],
  connection: socketOf(request.source)
})

/** The Node socket under Effect's request, when the platform is Node's. */
const socketOf = (source: unknown): object | undefined => {
  const socket = (source as { socket?: unknown } | null)?.socket
  return typeof socket === "object" && socket !== null ? socket : undefined
}

/**
 * HttpApi's bearer security hands us whatever follows the scheme (`Bearer a b` included), so the
 * header is read and checked by the gate instead (Gate.ts: both limits, the key, its scope), once
 * per request: a request the host's front screened already (host/recordReads.ts) is not charged
 * again. Only a key the host must look up waits for storage.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const gate = yield* Gate

    const proceed = <E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      request: HttpServerRequest.HttpServerRequest,
      knock: Knock,
      info: RequestInfoShape,
      screened: Screened
    ): Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      E | Unauthorized | RateLimited | Forbidden | ValidationError | StorageUnavailable,
      Exclude<R, Caller> | HttpServerRequest.HttpServerRequest
    > => {
      switch (screened._tag) {
        case "Refused": {
          const shown = screened.shown === null ? null : showLimit(info, screened.shown)
          return shown === null ? Effect.fail(screened.error) : Effect.andThen(shown, Effect.fail(screened.error))
        }
        case "LookUp":
          return Effect.flatMap(gate.authenticate(screened.presented), (owner) =>
            Option.isNone(owner)
              ? Effect.fail(new Unauthorized({ message: "unknown API key" }))
              : Effect.flatMap(Clock.currentTimeMillis, (later) =>
                  proceed(httpEffect, request, knock, info, gate.admit(knock, info, screened.byAddress, owner.value, later))
                )
          )
        case "Admitted": {
          const { owner } = screened
          const shown = showLimit(info, screened.shown)
          const answer = withPositions(
            request,
            owner.keyId,
            gate.lastWrites,
            gate.engine,
            Effect.provideService(httpEffect, Caller, callerOf(owner, info.id))
          )
          return shown === null ? answer : Effect.andThen(shown, answer)
        }
      }
    }

    return Authentication.of({
      bearer: (httpEffect) =>
        Effect.withFiber((fiber) => {
          const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
          const info = requestInfoOf(request)
          const knock = knockOf(request)
          const screened = info.screened ?? gate.screen(knock, info, fiber.getRef(Clock.Clock).currentTimeMillisUnsafe())
          return proceed(httpEffect, request, knock, info, screened)
        })
    })
  })
)
