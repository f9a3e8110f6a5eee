import { HttpServerResponse } from "effect/http"
import { Cause, Option, SchemaIssue } from "effect"
import type { ErrorBody, ErrorCode } from "./ErrorBody.js"

/**
 * The one place where a failure becomes an HTTP response. Everything that can go wrong in a
 * request (domain errors from the engine, failures the edge detects, HttpApi's own decode and
 * routing errors, and defects) ends here, so every non-2xx has the same body.
 */

interface Detail {
  readonly path: string
  readonly message: string
  readonly id?: string | undefined
}

interface Mapped {
  readonly status: number
  readonly code: ErrorCode
  readonly message: string
  readonly details: ReadonlyArray<Detail>
  readonly headers?: Readonly<Record<string, string>>
}

const field = (u: object, key: string): unknown => (u as Record<string, unknown>)[key]
const text = (u: object, key: string, fallback: string): string => {
  const value = field(u, key)
  return typeof value === "string" ? value : fallback
}
const detailsOf = (u: object): ReadonlyArray<Detail> => {
  const value = field(u, "details")
  return Array.isArray(value) ? value as ReadonlyArray<Detail> : []
}

type PathSegment = PropertyKey | { readonly key: PropertyKey }

const issuePath = (path: ReadonlyArray<PathSegment> | undefined): string =>
  (path ?? []).reduce<string>((out, segment) => {
    const key = typeof segment === "object" ? segment.key : segment
    return typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`
  }, "")

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const validation = (details: ReadonlyArray<Detail>): Mapped => {
  const first = details[0]
  return {
    status: 400,
    code: "validation_error",
    message: first === undefined ? "invalid request" : `${first.path} ${first.message}`.trim(),
    details
  }
}

const internal: Mapped = { status: 500, code: "internal_error", message: "internal error", details: [] }

/**
 * HttpApi's own decode failure of a path parameter, a query parameter or a header (`Params`,
 * `Query`, `Headers`; `Payload` too, should an endpoint ever let HttpApi read its body). `Body`
 * and `ResponseHeaders` are our answer failing to encode: a bug, so a 500.
 */
const schemaError = (error: object): Mapped => {
  const kind = field(error, "kind")
  if (kind === "Body" || kind === "ResponseHeaders") return internal
  const issue = (field(error, "cause") as { issue?: SchemaIssue.Issue } | undefined)?.issue
  if (issue === undefined) return validation([])
  const named = kind === "Headers" ? headerName : (path: string) => path
  return validation(formatIssues(issue).issues.map((found) => ({ path: named(issuePath(found.path)), message: found.message })))
}

/**
 * Headers arrive lowercased, so HttpApi names them so; our errors name a header as it is written
 * (`if-match` → `If-Match`, `idempotency-key` → `Idempotency-Key`), as they always have.
 */
const headerName = (name: string): string => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())

/** Failures of the HTTP server itself: a route that does not exist, a body it could not read. */
const serverError = (error: object): Mapped => {
  const reason = field(error, "reason")
  switch (typeof reason === "object" && reason !== null ? field(reason, "_tag") : undefined) {
    case "RouteNotFound":
      return { status: 404, code: "not_found", message: "no such route", details: [] }
    case "RequestParseError":
      // Only reachable through HttpApi's own body parsing; our handlers read bodies in jsonBody.ts.
      return { status: 400, code: "invalid_json", message: "the request body could not be read as JSON", details: [] }
    default:
      return internal
  }
}

const byTag = (error: object): Mapped | undefined => {
  switch (field(error, "_tag")) {
    case "ValidationError":
      return { ...validation(detailsOf(error)), message: text(error, "message", "invalid request") }
    case "NotFound":
      return { status: 404, code: "not_found", message: String(field(error, "message")), details: [] }
    case "Conflict":
      return { status: 409, code: "conflict", message: text(error, "message", "conflict"), details: detailsOf(error) }
    case "PreconditionFailed": {
      const current = field(error, "currentVersion")
      return {
        status: 412,
        code: "precondition_failed",
        message: "If-Match does not match the current version",
        details: [{ path: "If-Match", message: `current version is ${String(current)}` }],
        headers: typeof current === "number" ? { etag: `"${current}"` } : {}
      }
    }
    case "StorageUnavailable":
      // The storage message may name hosts or SQL; the client only needs to know to retry.
      return { status: 503, code: "unavailable", message: "storage is unavailable, retry later", details: [], headers: { "retry-after": "1" } }
    case "InvalidJson":
      return { status: 400, code: "invalid_json", message: text(error, "message", "malformed JSON"), details: [] }
    case "Unauthorized":
      return { status: 401, code: "unauthorized", message: text(error, "message", "unauthorized"), details: [], headers: { "www-authenticate": "Bearer" } }
    case "IdempotencyConflict":
      return { status: 409, code: "idempotency_conflict", message: text(error, "message", "idempotency key reused"), details: [{ path: "Idempotency-Key", message: "was used with another request" }] }
    case "PayloadTooLarge":
    case "HttpApiPayloadTooLarge":
      // The rest of the upload is discarded unread; the connection cannot be reused after it.
      return { status: 413, code: "payload_too_large", message: text(error, "message", "body too large"), details: [], headers: { connection: "close" } }
    case "UnsupportedMediaType":
      return { status: 415, code: "unsupported_media_type", message: text(error, "message", "unsupported media type"), details: [] }
    case "RateLimited": {
      const retryAfter = field(error, "retryAfterSeconds")
      return {
        status: 429,
        code: "rate_limited",
        message: "rate limit exceeded",
        details: [],
        headers: { "retry-after": String(typeof retryAfter === "number" ? retryAfter : 1) }
      }
    }
    case "HttpApiSchemaError":
      return schemaError(error)
    case "HttpServerError":
      return serverError(error)
  }
  return undefined
}

export interface ErrorResponse {
  readonly response: HttpServerResponse.HttpServerResponse
  /** Set for 500s: what the operator needs to see in the log, never sent to the client. */
  readonly internal: string | null
}

/** `None` when the request was interrupted (client gone): there is nobody to answer. */
export const errorResponse = (cause: Cause.Cause<unknown>, requestId: string): Option.Option<ErrorResponse> => {
  if (Cause.hasInterruptsOnly(cause)) return Option.none()
  const failure = Option.orElse(Cause.findErrorOption(cause), () => Option.fromNullishOr(
    cause.reasons.find(Cause.isDieReason)?.defect
  ))
  const mapped = Option.flatMapNullishOr(
    Option.filter(failure, (u): u is object => typeof u === "object" && u !== null),
    byTag
  )
  const { code, details, headers, message, status } = Option.getOrElse(mapped, () => internal)
  const body: ErrorBody = {
    error: { code, message, details: details.map(({ id, message, path }) => id === undefined ? { path, message } : { path, message, id }), request_id: requestId }
  }
  return Option.some({
    response: HttpServerResponse.jsonUnsafe(body, { status, headers: headers ?? {} }),
    internal: Option.isSome(mapped) && status !== 500 ? null : Cause.pretty(cause)
  })
}
