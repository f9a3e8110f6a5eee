import { Engine, type KeyManager, RecordTypes, type RequestContext, type ValidationError } from "@dealstream/core"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Forbidden, Invalid, RateLimited, Unauthorized, Unavailable } from "../errors/HttpErrors.js"
import * as AddressLimiter from "../rateLimit/AddressRateLimit.js"
import { type RateDecision, RateLimiter } from "../rateLimit/RateLimiter.js"
import { pathOf } from "../host/requestFront.js"
import { rateLimitHeaders, type RequestInfoShape, requestInfoOf } from "../request/RequestInfo.js"
import { ApiKeys, type KeyOwner } from "./ApiKeys.js"
import { LastWrites, withPositions } from "./readYourWrites.js"
import { missingScope } from "./scopes.js"

/**
 * The authenticated caller of a /v1 endpoint, in the engine's own terms (its `actor` is the key's
 * id, which every event it writes and so every history entry names), and what its key may grant
 * when it manages keys.
 */
export interface CallerContext extends RequestContext {
  readonly key: KeyManager
}

export class Caller extends Context.Service<Caller, CallerContext>()("@dealstream/http/Caller") {}

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

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

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

const refused = (info: RequestInfoShape, decision: RateDecision) => {
  const refusal = new RateLimited({ message: "rate limit exceeded", retryAfterSeconds: decision.retryAfterSeconds })
  const shown = showLimit(info, decision)
  return shown === null ? Effect.fail(refusal) : Effect.andThen(shown, Effect.fail(refusal))
}

/**
 * HttpApi's bearer security hands us whatever follows the scheme (`Bearer a b` included), so the
 * header is read and checked here instead. Two limits apply: the client address's before anything
 * else, since an unknown key costs a storage read and a flood of them must stop before the
 * database; then the key's, once the key is known. Every request to an authenticated route is
 * charged to its address, a valid key's too.
 *
 * Plain code between one read of the fiber (its request and Clock) and the endpoint: a key the host
 * knows (its own, or a stored one it remembers) is admitted without another step; only a key it
 * must look up waits for storage. As an Effect.gen of eleven steps it cost about 16 µs of the
 * memory host's 75 per GET (bench/ANALYSIS.md, issue 32).
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const limiter = yield* RateLimiter
    const addresses = AddressLimiter.make(yield* AddressLimiter.AddressRateLimit, limiter.options)
    const engine = yield* Engine
    const lastWrites = new LastWrites()
    const plurals = new Set((yield* RecordTypes).map((plugin) => plugin.plural))

    const admit = <E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      request: HttpServerRequest.HttpServerRequest,
      info: RequestInfoShape,
      byAddress: RateDecision,
      owner: KeyOwner,
      now: number
    ): Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      E | Unauthorized | RateLimited | Forbidden | ValidationError,
      Exclude<R, Caller> | HttpServerRequest.HttpServerRequest
    > => {
      // An expiry is checked on every request against the clock, whatever the cache holds.
      const { expiresAt } = owner
      if (expiresAt !== null && Date.parse(expiresAt) <= now) {
        return Effect.fail(new Unauthorized({ message: `this API key expired at ${expiresAt}` }))
      }
      // In memory only: the write of last_used_at never runs on the request's path (keyUses.ts).
      keys.usedAt(owner, now)
      info.workspaceId = owner.workspaceId
      const byKey = limiter.takeAt(owner.keyId, now)
      if (!byKey.allowed) return refused(info, byKey)
      // One set of headers: the limit nearer to refusing this client (the key's on a tie).
      const shown = showLimit(info, byKey.remaining <= byAddress.remaining ? byKey : byAddress)
      const lacking = missingScope(owner.scopes, request.method, pathOf(request.url), plurals)
      const answer: Effect.Effect<
        HttpServerResponse.HttpServerResponse,
        E | Forbidden | ValidationError,
        Exclude<R, Caller> | HttpServerRequest.HttpServerRequest
      > =
        lacking !== null
          ? Effect.fail(new Forbidden({ message: `this API key may not do this: it lacks the scope ${lacking}`, scope: lacking }))
          : withPositions(
              request,
              owner.keyId,
              lastWrites,
              engine,
              Effect.provideService(httpEffect, Caller, {
                workspaceId: owner.workspaceId,
                requestId: info.id,
                actor: owner.keyId,
                key: { scopes: owner.scopes, configured: owner.configured }
              })
            )
      return shown === null ? answer : Effect.andThen(shown, answer)
    }

    return Authentication.of({
      bearer: (httpEffect) =>
        Effect.withFiber((fiber) => {
          const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
          const now = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
          const info = requestInfoOf(request)
          const byAddress = addresses.takeAt(request, now)
          if (!byAddress.allowed) return refused(info, byAddress)
          const header = request.headers["authorization"]
          if (header === undefined) {
            return Effect.fail(new Unauthorized({ message: "missing Authorization header (expected: Bearer <API key>)" }))
          }
          const match = BEARER.exec(header)
          if (match === null) return Effect.fail(new Unauthorized({ message: "the Authorization header must use the Bearer scheme" }))
          const presented = match[1]!
          const known = keys.knownAt(presented, now)
          if (known !== undefined) return admit(httpEffect, request, info, byAddress, known, now)
          return Effect.flatMap(keys.authenticate(presented), (owner) =>
            Option.isNone(owner)
              ? Effect.fail(new Unauthorized({ message: "unknown API key" }))
              : Effect.flatMap(Clock.currentTimeMillis, (later) => admit(httpEffect, request, info, byAddress, owner.value, later))
          )
        })
    })
  })
)
