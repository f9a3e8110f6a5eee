import { HttpServerRequest } from "effect/http"
import { Context, type Fiber } from "effect"
import type { Screened } from "../auth/Gate.js"
import type { RateDecision } from "../rateLimit/RateLimiter.js"

/**
 * What the host knows about the request in flight: its id (for the response header, error bodies
 * and the engine's event metadata), once authenticated its workspace (for the request log), and
 * for a 500 what went wrong (for the log line only). The host's front (host/requestFront.ts) makes
 * it before the request reaches Effect and keeps it on the Node request; outside the host (an
 * embedder's own router) the first reader makes a bare one.
 */
export interface RequestInfoShape {
  readonly id: string
  workspaceId: string | null
  /** Set when the answer is a 500: what the operator needs to see, never sent to the client. */
  internal: string | null
  /**
   * Adds headers to the answer, whatever it turns out to be: the host's front sets them on the Node
   * response before Effect writes it. Null outside the host, where Authentication adds a
   * pre-response handler instead.
   */
  readonly setHeaders: ((headers: Record<string, string>) => void) | null
  /**
   * The gate's answer when the host's front screened the request already (host/recordReads.ts):
   * Authentication then takes it as it is, so no limit is charged twice.
   */
  screened: Screened | null
}

// A symbol on the request object: one property read per use, no Context lookup and no per-request
// provideService (a fiber's context is copied on each provide).
const INFO = Symbol.for("@dealstream/http/RequestInfo")

type Carrier = { [INFO]?: RequestInfoShape }

/** Keeps `info` on the platform's request (Node's IncomingMessage under the host). */
export const attachRequestInfo = (source: object, info: RequestInfoShape): void => {
  ;(source as Carrier)[INFO] = info
}

/** The info the host's front kept on a Node request, if it did. */
export const attachedRequestInfo = (source: object): RequestInfoShape | undefined => (source as Carrier)[INFO]

const bare = (): RequestInfoShape => ({ id: "req_none", workspaceId: null, internal: null, setHeaders: null, screened: null })

/** The request's info, made bare on first use when no front made it. */
export const requestInfoOf = (request: HttpServerRequest.HttpServerRequest): RequestInfoShape => {
  const carrier = request.source as Carrier
  if (typeof carrier !== "object" || carrier === null) return bare()
  const held = attachedRequestInfo(carrier)
  if (held !== undefined) return held
  const made = bare()
  carrier[INFO] = made
  return made
}

/** The info of the request the fiber serves; a bare one for code run outside any request. */
export const currentRequestInfo = (fiber: Fiber.Fiber<unknown, unknown>): RequestInfoShape => {
  const request = Context.getOrUndefined(fiber.context, HttpServerRequest.HttpServerRequest)
  return request === undefined ? bare() : requestInfoOf(request)
}

/** The RateLimit-* headers of a decision. */
export const rateLimitHeaders = (decision: RateDecision): Record<string, string> => ({
  "ratelimit-limit": String(decision.limit),
  "ratelimit-remaining": String(decision.remaining),
  "ratelimit-reset": String(decision.resetSeconds)
})

const PRINTABLE = /^[\x21-\x7e](?:[\x20-\x7e]{0,198}[\x21-\x7e])?$/

/**
 * A request's id: the client's X-Request-Id when it is 1–200 printable ASCII characters (sent
 * once), else a new one.
 */
export const requestIdOf = (header: string | ReadonlyArray<string> | undefined, newRequestId: () => string): string =>
  typeof header === "string" && PRINTABLE.test(header) ? header : newRequestId()
