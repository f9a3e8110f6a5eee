import { Data } from "effect"

/** One offending part of a request, as the API's error body names it. */
export interface ErrorDetail {
  readonly path: string
  readonly message: string
  /** The record a conflict is with, or the stage whose rule refused a move. */
  readonly id?: string
}

/**
 * Any answer of the host that is not a success, as its error body says it
 * (`{"error": {"code", "message", "details", "request_id"}}`): `code` is one of the API's codes
 * (`validation_error`, `not_found`, `conflict`, `precondition_failed`, `rate_limited`, …).
 */
export class DealstreamError extends Data.TaggedError("DealstreamError")<{
  readonly status: number
  readonly code: string
  readonly message: string
  readonly details: ReadonlyArray<ErrorDetail>
  readonly requestId: string | null
  /** Seconds to wait, on a 429 or 503 that says so. */
  readonly retryAfter: number | null
}> {}
