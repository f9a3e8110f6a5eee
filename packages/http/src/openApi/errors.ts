import { errorBodyJsonSchema } from "../errors/ErrorBody.js"
import type { ErrorCode } from "../errors/ErrorBody.js"

/**
 * The error schemas of the document. Endpoints declare their failures with the errors' own
 * schemas (the engine's and the edge's, for typing and status codes), which HttpApi documents
 * field by field under `<Name>Encoded`; the host answers every failure in one shape
 * (errors/errorResponse.ts), so the document shows each error under its name in that shape, with
 * its code.
 */

export const REF = "#/components/schemas/"

/** Each declared error's name in the document, and the code its body carries. */
export const ERROR_CODES: Readonly<Record<string, ErrorCode>> = {
  ValidationError: "validation_error",
  InvalidJson: "invalid_json",
  Unauthorized: "unauthorized",
  NotFound: "not_found",
  Conflict: "conflict",
  IdempotencyConflict: "idempotency_conflict",
  PreconditionFailed: "precondition_failed",
  PayloadTooLarge: "payload_too_large",
  UnsupportedMediaType: "unsupported_media_type",
  RateLimited: "rate_limited",
  StorageUnavailable: "unavailable"
}

/** Not declared by any endpoint: any of them may fail unexpectedly (see document.ts). */
export const INTERNAL_ERROR = "InternalError"

/** What each status means, with its codes, as the description of that response. */
export const DESCRIPTIONS: Readonly<Record<string, string>> = {
  "400": "validation_error (a body, query, path or header value is invalid) or invalid_json",
  "401": "unauthorized: missing Authorization header, another scheme than Bearer, or an unknown API key",
  "404": "not_found: unknown id, soft-deleted record, or a record of another workspace",
  "409": "conflict (e.g. the email is taken; details name the existing id) or idempotency_conflict",
  "412": "precondition_failed: If-Match does not name the current version",
  "413": "payload_too_large: the body is over 1 MiB",
  "415": "unsupported_media_type: the body is not application/json",
  "429": "rate_limited: retry after Retry-After seconds",
  "500": "internal_error: the host failed unexpectedly; its log has the cause under the request id",
  "503": "unavailable: the database cannot be reached; retry after Retry-After seconds"
}

/**
 * The error body with its code fixed: a whole schema per error rather than `allOf` with the
 * shared shape, which generators of clients handle unevenly.
 */
const withCode = (code: ErrorCode): Record<string, unknown> => {
  // ErrorBody's example is a validation error: only that error keeps it.
  const { examples, ...shape } = errorBodyJsonSchema
  const body = shape as { properties: { error: { properties: Record<string, unknown> } } }
  return {
    ...shape,
    ...(code === "validation_error" ? { examples } : {}),
    properties: {
      ...body.properties,
      error: { ...body.properties.error, properties: { ...body.properties.error.properties, code: { type: "string", const: code } } }
    },
    description: `The error body, with code ${code}.`
  }
}

/**
 * The components with the declared errors in the ErrorBody shape, and the renaming of HttpApi's
 * `<Name>Encoded` references to them.
 */
export const errorSchemas = (schemas: Record<string, unknown>): { readonly schemas: Record<string, unknown>; readonly renamed: ReadonlyMap<string, string> } => {
  const out: Record<string, unknown> = { ...schemas, [INTERNAL_ERROR]: withCode("internal_error") }
  const renamed = new Map<string, string>()
  for (const [name, code] of Object.entries(ERROR_CODES)) {
    for (const generated of [`${name}Encoded`, name]) {
      if (!(generated in out)) continue
      delete out[generated]
      out[name] = withCode(code)
      renamed.set(`${REF}${generated}`, `${REF}${name}`)
    }
  }
  return { schemas: out, renamed }
}

/** The 500 every operation may answer. */
export const internalErrorResponse = () => ({
  description: DESCRIPTIONS["500"]!,
  content: { "application/json": { schema: { $ref: `${REF}${INTERNAL_ERROR}` } } }
})
