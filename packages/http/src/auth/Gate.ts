import { Engine, type EngineService, RecordTypes, type StorageUnavailable } from "@dealstream/core"
import { Context, Effect, Layer, type Option } from "effect"
import { Forbidden, RateLimited, Unauthorized } from "../errors/HttpErrors.js"
import * as AddressLimiter from "../rateLimit/AddressRateLimit.js"
import { type RateDecision, RateLimiter } from "../rateLimit/RateLimiter.js"
import type { RequestInfoShape } from "../request/RequestInfo.js"
import { ApiKeys, type KeyOwner } from "./ApiKeys.js"
import { LastWrites } from "./readYourWrites.js"
import { missingScope } from "./scopes.js"

/** What the gate reads of a request, from Node's request or Effect's alike. */
export interface Knock {
  readonly method: string
  /** The path alone, without the query string. */
  readonly path: string
  readonly authorization: string | undefined
  /** The socket's peer; undefined on a Unix socket. */
  readonly remoteAddress: string | undefined
  readonly forwardedFor: string | undefined
  /** The connection it came on (Node's socket), when there is one: ApiKeys.knownAt's memo. */
  readonly connection: object | undefined
}

/**
 * A request screened at the gate:
 * - `Admitted`: its key is known, within its limits and holds the route's scope; `shown` is the
 *   limit nearer to refusing this client, whose headers the answer carries;
 * - `Refused`: the error it is answered with, and the limit to show with it (null: none);
 * - `LookUp`: its key must be looked up in storage before it can be admitted or refused.
 */
export type Screened =
  | { readonly _tag: "Admitted"; readonly owner: KeyOwner; readonly shown: RateDecision }
  | { readonly _tag: "Refused"; readonly error: Unauthorized | RateLimited | Forbidden; readonly shown: RateDecision | null }
  | { readonly _tag: "LookUp"; readonly presented: string; readonly byAddress: RateDecision }

export interface GateService {
  /**
   * Screens a request at `now`: the client address's limit before anything else (an unknown key
   * costs a storage read, and a flood of them must stop before the database), the Authorization
   * header, then a key the host knows without asking storage. Takes the tokens it decides on, so a
   * request is screened once: the host's front keeps the answer on the RequestInfo for the
   * endpoint's Authentication to reuse.
   */
  readonly screen: (knock: Knock, info: RequestInfoShape, now: number) => Screened
  /** The rest of a screen once `authenticate` found the key: its expiry, its limit, its scope. */
  readonly admit: (knock: Knock, info: RequestInfoShape, byAddress: RateDecision, owner: KeyOwner, now: number) => Screened
  readonly authenticate: (presented: string) => Effect.Effect<Option.Option<KeyOwner>, StorageUnavailable>
  /** Each key's last write through this host, which its reads must see (readYourWrites.ts). */
  readonly lastWrites: LastWrites
  readonly engine: EngineService
}

/**
 * The gate every authenticated request passes, as plain code: both limits, the key, its scope.
 * One per host, shared by the endpoints' Authentication and the host's front (host/recordReads.ts),
 * so that a request is charged once whichever of them serves it.
 */
export class Gate extends Context.Service<Gate, GateService>()("@dealstream/http/Gate") {}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

export const GateLive = Layer.effect(
  Gate,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const limiter = yield* RateLimiter
    const addresses = AddressLimiter.make(yield* AddressLimiter.AddressRateLimit, limiter.options)
    const engine = yield* Engine
    const plurals = new Set((yield* RecordTypes).map((plugin) => plugin.plural))

    const admit = (knock: Knock, info: RequestInfoShape, byAddress: RateDecision, owner: KeyOwner, now: number): Screened => {
      // An expiry is checked on every request against the clock, whatever the cache holds.
      const { expiresAt } = owner
      if (expiresAt !== null && Date.parse(expiresAt) <= now) {
        return { _tag: "Refused", error: new Unauthorized({ message: `this API key expired at ${expiresAt}` }), shown: null }
      }
      // In memory only: the write of last_used_at never runs on the request's path (keyUses.ts).
      keys.usedAt(owner, now)
      info.workspaceId = owner.workspaceId
      const byKey = limiter.takeAt(owner.keyId, now)
      if (!byKey.allowed) return { _tag: "Refused", error: rateLimited(byKey), shown: byKey }
      // One set of headers: the limit nearer to refusing this client (the key's on a tie).
      const shown = byKey.remaining <= byAddress.remaining ? byKey : byAddress
      const lacking = missingScope(owner.scopes, knock.method, knock.path, plurals)
      if (lacking === null) return { _tag: "Admitted", owner, shown }
      return {
        _tag: "Refused",
        error: new Forbidden({ message: `this API key may not do this: it lacks the scope ${lacking}`, scope: lacking }),
        shown
      }
    }

    return Gate.of({
      screen: (knock, info, now) => {
        const byAddress = addresses.takeAt(knock.remoteAddress, knock.forwardedFor, now)
        if (!byAddress.allowed) return { _tag: "Refused", error: rateLimited(byAddress), shown: byAddress }
        if (knock.authorization === undefined) {
          return {
            _tag: "Refused",
            error: new Unauthorized({ message: "missing Authorization header (expected: Bearer <API key>)" }),
            shown: null
          }
        }
        const match = BEARER.exec(knock.authorization)
        if (match === null) {
          return {
            _tag: "Refused",
            error: new Unauthorized({ message: "the Authorization header must use the Bearer scheme" }),
            shown: null
          }
        }
        const presented = match[1]!
        const known = keys.knownAt(presented, now, knock.connection)
        return known === undefined ? { _tag: "LookUp", presented, byAddress } : admit(knock, info, byAddress, known, now)
      },
      admit,
      authenticate: keys.authenticate,
      lastWrites: new LastWrites(),
      engine
    })
  })
)

const rateLimited = (decision: RateDecision) =>
  new RateLimited({ message: "rate limit exceeded", retryAfterSeconds: decision.retryAfterSeconds })
