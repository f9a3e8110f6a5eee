import type { OpenAPISpec } from "@effect/platform/OpenApi"
import { errorBodyJsonSchema } from "./errors/ErrorBody.js"

const CODES_BY_STATUS: Record<string, string> = {
  "400": "validation_error (a body, query, path or header value is invalid) or invalid_json",
  "401": "unauthorized: missing Authorization header, another scheme than Bearer, or an unknown API key",
  "404": "not_found: unknown id, soft-deleted record, or a record of another workspace",
  "409": "conflict (e.g. the email is taken; details name the existing id) or idempotency_conflict",
  "412": "precondition_failed: If-Match does not name the current version",
  "413": "payload_too_large: the body is over 1 MiB",
  "415": "unsupported_media_type: the body is not application/json",
  "429": "rate_limited: retry after Retry-After seconds",
  "503": "unavailable: the database cannot be reached; retry after Retry-After seconds"
}

/**
 * HttpApi documents its own decode failure (HttpApiDecodeError, with parse issues) and describes
 * each status by whichever error schema came first. The host answers every failure in the
 * ErrorBody shape (errorResponse.ts), so the document says that, and lists the codes per status.
 */
export const describeEdgeErrors = (spec: Record<string, any>): Record<string, any> => {
  const typed = spec as OpenAPISpec
  const schemas: Record<string, unknown> = { ...typed.components.schemas }
  if ("HttpApiDecodeError" in schemas) {
    schemas["HttpApiDecodeError"] = { ...errorBodyJsonSchema, description: "validation_error: a query, path or header value is malformed" }
    delete schemas["Issue"]
    delete schemas["PropertyKey"]
  }
  for (const item of Object.values(typed.paths)) {
    for (const operation of Object.values(item as Record<string, { responses?: Record<string, { description: string }> }>)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const codes = CODES_BY_STATUS[status]
        if (codes !== undefined) response.description = codes
      }
    }
  }
  return { ...spec, components: { ...typed.components, schemas } }
}
