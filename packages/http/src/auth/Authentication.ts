import { Engine, type KeyManager, RecordTypes, type RequestContext } from "@dealstream/core"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Forbidden, Invalid, RateLimited, Unauthorized, Unavailable } from "../errors/HttpErrors.js"
import * as AddressLimiter from "../rateLimit/AddressRateLimit.js"
import { type RateDecision, RateLimiter } from "../rateLimit/RateLimiter.js"
import { rateLimitHeaders, RequestInfo } from "../request/RequestInfo.js"
import { ApiKeys } from "./ApiKeys.js"
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

/** The path of a request target: origin-form (`/v1/…?…`) sliced, anything else parsed. */
const pathOf = (target: string): string => {
  if (!target.startsWith("/")) return new URL(target, "http://localhost").pathname
  const query = target.indexOf("?")
  return query < 0 ? target : target.slice(0, query)
}

/**
 * The RateLimit-* headers of a decision, on whatever answer the request gets: the host middleware
 * sets them from RequestInfo; under a router of an embedder's own, a pre-response handler does.
 */
const showLimit = (decision: RateDecision) =>
  RequestInfo.use((info) => {
    if (info.hosted) {
      info.rateLimit = decision
      return Effect.void
    }
    return HttpEffect.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeaders(response, rateLimitHeaders(decision)))
    )
  })

const refused = (decision: RateDecision) =>
  Effect.andThen(showLimit(decision), new RateLimited({ message: "rate limit exceeded", retryAfterSeconds: decision.retryAfterSeconds }))

/**
 * HttpApi's bearer security hands us whatever follows the scheme (`Bearer a b` included), so the
 * header is read and checked here instead. Two limits apply: the client address's before anything
 * else, since an unknown key costs a storage read and a flood of them must stop before the
 * database; then the key's, once the key is known. Every request to an authenticated route is
 * charged to its address, a valid key's too.
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
    return Authentication.of({
      bearer: (httpEffect) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const byAddress = yield* addresses.take(request)
          if (!byAddress.allowed) return yield* refused(byAddress)
          const header = request.headers["authorization"]
          if (header === undefined) {
            return yield* new Unauthorized({ message: "missing Authorization header (expected: Bearer <API key>)" })
          }
          const match = BEARER.exec(header)
          if (match === null) {
            return yield* new Unauthorized({ message: "the Authorization header must use the Bearer scheme" })
          }
          const owner = yield* keys.authenticate(match[1]!)
          if (Option.isNone(owner)) return yield* new Unauthorized({ message: "unknown API key" })
          // An expiry is checked on every request against the clock, whatever the cache holds.
          const { expiresAt } = owner.value
          if (expiresAt !== null && Date.parse(expiresAt) <= (yield* Clock.currentTimeMillis)) {
            return yield* new Unauthorized({ message: `this API key expired at ${expiresAt}` })
          }
          // In memory only: the write of last_used_at never runs on the request's path (keyUses.ts).
          yield* keys.used(owner.value)
          const info = yield* RequestInfo
          info.workspaceId = owner.value.workspaceId

          const byKey = yield* limiter.take(owner.value.keyId)
          if (!byKey.allowed) return yield* refused(byKey)
          // One set of headers: the limit nearer to refusing this client (the key's on a tie).
          yield* showLimit(byKey.remaining <= byAddress.remaining ? byKey : byAddress)
          const lacking = missingScope(owner.value.scopes, request.method, pathOf(request.url), plurals)
          if (lacking !== null)
            return yield* new Forbidden({ message: `this API key may not do this: it lacks the scope ${lacking}`, scope: lacking })
          return yield* withPositions(
            request,
            owner.value.keyId,
            lastWrites,
            engine,
            Effect.provideService(httpEffect, Caller, {
              workspaceId: owner.value.workspaceId,
              requestId: info.id,
              actor: owner.value.keyId,
              key: { scopes: owner.value.scopes, configured: owner.value.configured }
            })
          )
        })
    })
  })
)
