import { Schema } from "effect"

/** One offending part of a request; `path` points into the body, the query or a header. */
export const ErrorDetail = Schema.Struct({
  path: Schema.String.annotate({ examples: ["email", "filter.$or[1].value.$gt", "limit"] }),
  message: Schema.String,
  id: Schema.optionalKey(Schema.String.annotate({ description: "The record a conflict is with." }))
})

export const ErrorCode = Schema.Literals([
  "validation_error",
  "invalid_json",
  "unauthorized",
  "not_found",
  "conflict",
  "idempotency_conflict",
  "precondition_failed",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "internal_error",
  "unavailable"
])
export type ErrorCode = typeof ErrorCode.Type

/** The body of every non-2xx response. */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: ErrorCode,
    message: Schema.String,
    details: Schema.Array(ErrorDetail),
    request_id: Schema.String.annotate({ description: "The X-Request-Id of the request." })
  })
}).annotate({
  examples: [{
    error: {
      code: "validation_error",
      message: "email is required",
      details: [{ path: "email", message: "is required" }],
      request_id: "req_01jd7x4c2m8k9q3r5t6v7w8y9z"
    }
  }]
})
export type ErrorBody = typeof ErrorBody.Type

/**
 * ErrorBody as JSON Schema, closed like the rest of the document (no property it does not name).
 * Errors are declared on endpoints with their own schemas (for typing and status codes), but they
 * all reach the client as ErrorBody (see errorResponse.ts), so the OpenAPI document shows this
 * shape for each of them (openApi/errors.ts).
 */
export const errorBodyJsonSchema: Record<string, unknown> = Schema.toJsonSchemaDocument(ErrorBody, {
  onExcessProperty: "error"
}).schema
