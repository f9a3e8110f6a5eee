import { Conflict, NotFound, PreconditionFailed, StorageUnavailable, ValidationError } from "@dealstream/core"
import { HttpApiSchema } from "effect/http-api"
import { Schema } from "effect"

/**
 * Failures the HTTP edge itself detects (the engine never sees these requests). Domain failures
 * come from @dealstream/core; both become an ErrorBody in errorResponse.ts, which is what the
 * OpenAPI document shows for them (openApi/errors.ts).
 */

export class InvalidJson extends Schema.TaggedError<InvalidJson>()("InvalidJson", {
  message: Schema.String
}, { httpApiStatus: 400, description: "invalid_json: the body is not valid JSON" }) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  message: Schema.String
}, { httpApiStatus: 401, description: "unauthorized: missing header, wrong scheme or unknown API key" }) {}

export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()("IdempotencyConflict", {
  message: Schema.String
}, { httpApiStatus: 409, description: "idempotency_conflict: the Idempotency-Key was used with another request" }) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  message: Schema.String
}, { httpApiStatus: 413, description: "payload_too_large: the body is over 1 MiB" }) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  message: Schema.String
}, { httpApiStatus: 415, description: "unsupported_media_type: the body is not application/json" }) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfterSeconds: Schema.Finite
}, { httpApiStatus: 429, description: "rate_limited: retry after the number of seconds in Retry-After" }) {}

// The engine's errors with the status the edge answers them with. One schema each, shared by
// every endpoint and by authentication (which reads stored keys: 503), so that OpenAPI lists each
// once per operation.
export const Invalid = ValidationError.pipe(HttpApiSchema.status(400))
export const Missing = NotFound.pipe(HttpApiSchema.status(404))
export const Conflicting = Conflict.pipe(HttpApiSchema.status(409))
export const Stale = PreconditionFailed.pipe(HttpApiSchema.status(412))
export const Unavailable = StorageUnavailable.pipe(HttpApiSchema.status(503))
