/**
 * Every error the API answers, one row each: its status, the code its body carries, what it
 * means, the headers that come with it, and whether it shows the rate limit. The runtime mapping
 * (errorResponse.ts, and host/parserErrors.ts for what never reaches the app), the errors'
 * schemas (HttpErrors.ts: the status HttpApi declares them with) and the OpenAPI document
 * (openApi/: each status's description, its headers, the error schemas' codes) all read it, so
 * the code takes an error's status and code from here only (prose, such as the API's description
 * in Api.ts, still names some).
 *
 * A row is named by the tag of the error it answers: the engine's (@dealstream/core), storage's
 * StorageUnavailable, the edge's (HttpErrors.ts), and for refusals of the HTTP server the
 * condition it refuses. HttpApi's own failures are answered as rows of this table
 * (errorResponse.ts says which).
 */

/** A header that comes with an error, as it is written; the document describes it (openApi/headers.ts). */
export type ErrorHeader = "Retry-After" | "WWW-Authenticate" | "ETag" | "Connection" | "Location"

/**
 * Whether an authenticated operation's answer carries RateLimit-*: authentication shows the limit
 * once the key is known, so `"never"` on answers given before that, `"perhaps"` on those that may
 * come either side of it.
 */
export type RateLimitShown = "always" | "perhaps" | "never"

export interface ErrorRow<Code extends string = string, Header extends ErrorHeader = ErrorHeader> {
  readonly status: number
  readonly code: Code
  /** What the code means; an operation's response of this status is described with it. */
  readonly description: string
  readonly headers: ReadonlyArray<Header>
  readonly rateLimit: RateLimitShown
  /**
   * Answered by the HTTP server before any operation runs (Node's parser, the router): no
   * operation declares it, and the document names these in the API's description only.
   */
  readonly beforeOperations: boolean
}

interface Options<Header extends ErrorHeader> {
  readonly headers?: ReadonlyArray<Header>
  readonly rateLimit?: RateLimitShown
}

/** An error an operation answers. */
const answered = <const Code extends string, const Header extends ErrorHeader = never>(
  status: number,
  code: Code,
  description: string,
  options: Options<Header> = {}
): ErrorRow<Code, Header> => ({
  status,
  code,
  description,
  headers: options.headers ?? [],
  rateLimit: options.rateLimit ?? "always",
  beforeOperations: false
})

/** A request the HTTP server refuses before any operation, so before authentication. */
const refused = <const Code extends string, const Header extends ErrorHeader = never>(
  status: number,
  code: Code,
  description: string,
  headers: ReadonlyArray<Header> = []
): ErrorRow<Code, Header> => ({ status, code, description, headers, rateLimit: "never", beforeOperations: true })

/**
 * The errors operations answer, in status order (where several codes share a status, the first
 * row describes the status and the others are named after it: openApi/errors.ts), then the
 * refusals before any operation.
 */
export const ERRORS = {
  // A contact or company merged into another (API.md, "Merge and duplicates"): a client that
  // follows redirects reaches the survivor.
  Merged: answered(308, "merged", "the record was merged into another; Location and details name the survivor", {
    headers: ["Location"]
  }),
  ValidationError: answered(400, "validation_error", "a body, query, path or header value is invalid"),
  InvalidJson: answered(400, "invalid_json", "the body is not valid JSON"),
  // Before the key is known: the key is unknown, or was never sent.
  Unauthorized: answered(401, "unauthorized", "missing Authorization header, another scheme than Bearer, or an unknown API key", {
    headers: ["WWW-Authenticate"],
    rateLimit: "never"
  }),
  // Once the key is known: it may not do what the route does (auth/scopes.ts).
  Forbidden: answered(403, "forbidden", "the API key lacks the scope the route needs; details name it"),
  NotFound: answered(404, "not_found", "unknown id, soft-deleted record, or a record of another workspace"),
  Conflict: answered(409, "conflict", "e.g. the email is taken; details name the existing id"),
  IdempotencyConflict: answered(409, "idempotency_conflict", "the Idempotency-Key was used with another request"),
  PreconditionFailed: answered(412, "precondition_failed", "If-Match does not name the current version", { headers: ["ETag"] }),
  // The rest of the upload is discarded unread; the connection cannot be reused after it.
  PayloadTooLarge: answered(413, "payload_too_large", "the body is over 1 MiB", { headers: ["Connection"] }),
  UnsupportedMediaType: answered(415, "unsupported_media_type", "the body is not application/json"),
  RateLimited: answered(429, "rate_limited", "retry after Retry-After seconds", { headers: ["Retry-After"] }),
  // Declared by no operation, since any of them may fail unexpectedly (openApi/document.ts): a
  // defect, an unknown failure, or our own answer failing to encode. Perhaps during authentication.
  InternalError: answered(500, "internal_error", "the host failed unexpectedly; its log has the cause under the request id", {
    rateLimit: "perhaps"
  }),
  // An inline projection of the embedding service failed inside the commit (core's
  // storage/inlineProjection.ts): nothing was stored. A 500, not a 503: the embedder's code or
  // tables are at fault, not the request nor a passing outage, so the same request fails again.
  ProjectionFailed: answered(500, "projection_failed", "an inline projection of the embedding service failed; nothing was stored", {
    rateLimit: "perhaps"
  }),
  // Perhaps before the key is known: authentication reads stored keys (503, not 401: the key may be valid).
  StorageUnavailable: answered(503, "unavailable", "the database cannot be reached; retry after Retry-After seconds", {
    headers: ["Retry-After"],
    rateLimit: "perhaps"
  }),

  // Refused before the request reaches the app, by Node's HTTP parser or the host's own check of
  // Expect (host/parserErrors.ts); the connection is closed after them.
  MalformedRequest: refused(400, "validation_error", "the request is not valid HTTP/1.1", ["Connection"]),
  RequestTimeout: refused(408, "validation_error", "the request did not arrive completely in time", ["Connection"]),
  ChunkExtensionsTooLarge: refused(413, "payload_too_large", "the chunk extensions are too large", ["Connection"]),
  ExpectationFailed: refused(417, "validation_error", "an Expect header other than 100-continue", ["Connection"]),
  HeadersTooLarge: refused(431, "payload_too_large", "the request line and headers are larger than 16 KiB", ["Connection"]),
  // The router's: a path it cannot match, one that does not percent-decode to UTF-8, or with a
  // path parameter over 100 characters.
  RouteNotFound: refused(404, "not_found", "no route matches the path")
}

export type ErrorTag = keyof typeof ERRORS
type ErrorCode = (typeof ERRORS)[ErrorTag]["code"]

/** The headers that come with the error of this tag. */
export type HeaderOf<Tag extends ErrorTag> = (typeof ERRORS)[Tag]["headers"][number]

export const rows: ReadonlyArray<readonly [ErrorTag, ErrorRow<ErrorCode>]> = Object.entries(ERRORS) as Array<
  [ErrorTag, ErrorRow<ErrorCode>]
>

/** Every code, once each, in the table's order. */
export const errorCodes: ReadonlyArray<ErrorCode> = [...new Set(rows.map(([, row]) => row.code))]
