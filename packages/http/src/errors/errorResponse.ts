import { HttpServerResponse } from "effect/http"
import { Cause, Option, SchemaIssue } from "effect"
import type { JsonObject } from "@dealstream/core"
import type { ErrorCode } from "./ErrorBody.js"
import { ERRORS, type ErrorTag, type HeaderOf } from "./errorTable.js"

/**
 * The one place where a failure becomes an HTTP response. Everything that can go wrong in a
 * request (domain errors from the engine, failures the edge detects, HttpApi's own decode and
 * routing errors, and defects) ends here, so every non-2xx has the same body. Its status, code
 * and headers are its row's in errorTable.ts; here is what only the error knows: the message,
 * the details and the headers' values.
 */

interface Detail {
  readonly path: string
  readonly message: string
  readonly id?: string | undefined
  readonly scope?: string | undefined
  readonly merged_into?: string | undefined
}

/** The collection of a record type that merges, as its paths name it. */
const collectionOf = (resource: string): string => (resource === "company" ? "companies" : `${resource}s`)

interface Mapped {
  readonly status: number
  readonly code: ErrorCode
  readonly message: string
  readonly details: ReadonlyArray<Detail>
  readonly headers: Readonly<Record<string, string>>
}

/**
 * What an answer says besides its row's status and code: the message, the details, and a value
 * for each header the row names (undefined leaves it out).
 */
type Said<Tag extends ErrorTag> = { readonly message: string; readonly details?: ReadonlyArray<Detail> } & ([HeaderOf<Tag>] extends [never]
  ? {}
  : { readonly headers: { readonly [Name in HeaderOf<Tag>]: string | undefined } })

/** The answer of the table's row `tag`. */
const answer = <Tag extends ErrorTag>(tag: Tag, said: Said<Tag>): Mapped => {
  const { code, status } = ERRORS[tag]
  const named: Readonly<Record<string, string | undefined>> = "headers" in said ? said.headers : {}
  const headers = Object.fromEntries(
    Object.entries(named).flatMap(([name, value]) => (value === undefined ? [] : [[name.toLowerCase(), value]]))
  )
  return { status, code, message: said.message, details: said.details ?? [], headers }
}

const field = (u: object, key: string): unknown => (u as Record<string, unknown>)[key]
const text = (u: object, key: string, fallback: string): string => {
  const value = field(u, key)
  return typeof value === "string" ? value : fallback
}
const detailsOf = (u: object): ReadonlyArray<Detail> => {
  const value = field(u, "details")
  return Array.isArray(value) ? (value as ReadonlyArray<Detail>) : []
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
  return answer("ValidationError", {
    message: first === undefined ? "invalid request" : `${first.path} ${first.message}`.trim(),
    details
  })
}

const internal: Mapped = answer("InternalError", { message: "internal error" })

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
      return answer("RouteNotFound", { message: "no such route" })
    case "RequestParseError":
      // Only reachable through HttpApi's own body parsing; our handlers read bodies in jsonBody.ts.
      return answer("InvalidJson", { message: "the request body could not be read as JSON" })
    default:
      return internal
  }
}

const byTag = (error: object): Mapped | undefined => {
  switch (field(error, "_tag")) {
    case "ValidationError":
      return answer("ValidationError", { message: text(error, "message", "invalid request"), details: detailsOf(error) })
    case "NotFound": {
      const into = field(error, "mergedInto")
      if (typeof into !== "string") return answer("NotFound", { message: String(field(error, "message")) })
      return answer("Merged", {
        message: String(field(error, "message")),
        details: [{ path: "", message: `merged into ${into}`, merged_into: into }],
        headers: { Location: `/v1/${collectionOf(String(field(error, "resource")))}/${into}` }
      })
    }
    case "Conflict":
      return answer("Conflict", { message: text(error, "message", "conflict"), details: detailsOf(error) })
    case "PreconditionFailed": {
      const current = field(error, "currentVersion")
      return answer("PreconditionFailed", {
        message: "If-Match does not match the current version",
        details: [{ path: "If-Match", message: `current version is ${String(current)}` }],
        headers: { ETag: typeof current === "number" ? `"${current}"` : undefined }
      })
    }
    case "StorageUnavailable":
      // The storage message may name hosts or SQL; the client only needs to know to retry.
      return answer("StorageUnavailable", { message: "storage is unavailable, retry later", headers: { "Retry-After": "1" } })
    case "ProjectionFailed":
      // Its message names the projection and what failed: the embedder's own code, theirs to see.
      return answer("ProjectionFailed", { message: text(error, "message", "an inline projection failed") })
    case "InvalidJson":
      return answer("InvalidJson", { message: text(error, "message", "malformed JSON") })
    case "Unauthorized":
      return answer("Unauthorized", { message: text(error, "message", "unauthorized"), headers: { "WWW-Authenticate": "Bearer" } })
    case "Forbidden": {
      const scope = text(error, "scope", "")
      return answer("Forbidden", {
        message: text(error, "message", "forbidden"),
        details: [{ path: "Authorization", message: `the API key lacks the scope ${scope}`, scope }]
      })
    }
    case "IdempotencyConflict":
      return answer("IdempotencyConflict", {
        message: text(error, "message", "idempotency key reused"),
        details: [{ path: "Idempotency-Key", message: "was used with another request" }]
      })
    case "PayloadTooLarge":
    case "HttpApiPayloadTooLarge":
      // The rest of the upload is discarded unread; the connection cannot be reused after it.
      return answer("PayloadTooLarge", { message: text(error, "message", "body too large"), headers: { Connection: "close" } })
    case "UnsupportedMediaType":
      return answer("UnsupportedMediaType", { message: text(error, "message", "unsupported media type") })
    case "RateLimited": {
      const retryAfter = field(error, "retryAfterSeconds")
      return answer("RateLimited", {
        message: "rate limit exceeded",
        headers: { "Retry-After": String(typeof retryAfter === "number" ? retryAfter : 1) }
      })
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

/** A failed request's answer before it becomes a response: its status, headers and error body. */
export interface ErrorReply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: { readonly error: JsonObject }
  /** Set for 500s: what the operator needs to see in the log, never sent to the client. */
  readonly internal: string | null
}

/** `None` when the request was interrupted (client gone): there is nobody to answer. */
export const errorReply = (cause: Cause.Cause<unknown>, requestId: string): Option.Option<ErrorReply> => {
  if (Cause.hasInterruptsOnly(cause)) return Option.none()
  const failure = Option.orElse(Cause.findErrorOption(cause), () => Option.fromNullishOr(cause.reasons.find(Cause.isDieReason)?.defect))
  const mapped = Option.flatMapNullishOr(
    Option.filter(failure, (u): u is object => typeof u === "object" && u !== null),
    byTag
  )
  const answered = Option.getOrElse(mapped, () => internal)
  return Option.some({
    status: answered.status,
    headers: answered.headers,
    body: { error: errorOf(answered, requestId) },
    internal: Option.isSome(mapped) && answered.status !== internal.status ? null : Cause.pretty(cause)
  })
}

/** errorReply as the response Effect's router writes. */
export const errorResponse = (cause: Cause.Cause<unknown>, requestId: string): Option.Option<ErrorResponse> =>
  Option.map(errorReply(cause, requestId), (reply) => ({
    response: HttpServerResponse.jsonUnsafe(reply.body, { status: reply.status, headers: reply.headers }),
    internal: reply.internal
  }))

/** The error shape's `error` member: a detail's `id` and `scope` only where it has them. */
const errorOf = ({ code, details, message }: Mapped, requestId: string): JsonObject => ({
  code,
  message,
  details: details.map(
    ({ id, merged_into, message, path, scope }): JsonObject => ({
      path,
      message,
      ...(id === undefined ? {} : { id }),
      ...(scope === undefined ? {} : { scope }),
      ...(merged_into === undefined ? {} : { merged_into })
    })
  ),
  request_id: requestId
})

/**
 * The status and the error shape's `error` a domain error is answered with, for an answer that
 * holds several (a batch's per-operation results): the same as a request failing with it alone.
 */
export const errorAnswer = (error: object, requestId: string): { readonly status: number; readonly error: JsonObject } => {
  const answered = byTag(error) ?? internal
  return { status: answered.status, error: errorOf(answered, requestId) }
}
