import { Context } from "effect"
import type { RateDecision } from "../rateLimit/RateLimiter.js"

/**
 * What the host knows about the request in flight: its id (for the response header, error bodies
 * and the engine's event metadata), once authenticated its workspace (for the request log), and
 * for a 500 what went wrong (for the log line only). Provided per request by the host middleware;
 * the default only exists for code run outside one.
 */
export interface RequestInfoShape {
  readonly id: string
  workspaceId: string | null
  /** Set when the answer is a 500: what the operator needs to see, never sent to the client. */
  internal: string | null
  /**
   * The rate limit to show in the answer's RateLimit-* headers, which the host middleware sets with
   * X-Request-Id (once per answer, instead of a pre-response handler per request). False in the
   * default: outside the host's middleware, Authentication sets the headers itself.
   */
  rateLimit: RateDecision | null
  readonly hosted: boolean
}

export const RequestInfo = Context.Reference<RequestInfoShape>("@dealstream/http/RequestInfo", {
  defaultValue: () => ({ id: "req_none", workspaceId: null, internal: null, rateLimit: null, hosted: false })
})

/** The RateLimit-* headers of a decision. */
export const rateLimitHeaders = (decision: RateDecision): Record<string, string> => ({
  "ratelimit-limit": String(decision.limit),
  "ratelimit-remaining": String(decision.remaining),
  "ratelimit-reset": String(decision.resetSeconds)
})

const PRINTABLE = /^[\x21-\x7e](?:[\x20-\x7e]{0,198}[\x21-\x7e])?$/

/** A client's X-Request-Id is kept when it is 1–200 printable ASCII characters. */
export const acceptableRequestId = (header: string | undefined): header is string => header !== undefined && PRINTABLE.test(header)
