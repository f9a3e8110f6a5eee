import { Schema } from "effect"
import { errorCodes } from "./errorTable.js"

/** One offending part of a request; `path` points into the body, the query or a header. */
export const ErrorDetail = Schema.Struct({
  path: Schema.String.annotate({ examples: ["email", "filter.$or[1].value.$gt", "limit"] }),
  message: Schema.String,
  id: Schema.optionalKey(Schema.String.annotate({ description: "The record a conflict is with." })),
  scope: Schema.optionalKey(Schema.String.annotate({ description: "The scope the API key lacks (403 forbidden)." })),
  merged_into: Schema.optionalKey(Schema.String.annotate({ description: "The survivor a record was merged into (308 merged)." }))
})

/** The codes of the error table (errorTable.ts). */
export const ErrorCode = Schema.Literals(errorCodes)
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
  examples: [
    {
      error: {
        code: "validation_error",
        message: "email is required",
        details: [{ path: "email", message: "is required" }],
        request_id: "req_01jd7x4c2m8k9q3r5t6v7w8y9z"
      }
    }
  ]
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
