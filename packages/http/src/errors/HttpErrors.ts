import { StorageUnavailable } from "@dealstream/core"
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { asErrorBody, errorBodyJsonSchema } from "./ErrorBody.js"

/**
 * Failures the HTTP edge itself detects (the engine never sees these requests). Domain failures
 * come from @dealstream/core; both become an ErrorBody in errorResponse.ts, which is what the
 * OpenAPI document shows for them.
 */
const edge = <A>(status: number, description: string): Schema.Annotations.Schema<A> =>
  HttpApiSchema.annotations<A>({ status, description, jsonSchema: errorBodyJsonSchema })

export class InvalidJson extends Schema.TaggedError<InvalidJson>()("InvalidJson", {
  message: Schema.String
}, edge(400, "invalid_json: the body is not valid JSON")) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  message: Schema.String
}, edge(401, "unauthorized: missing header, wrong scheme or unknown API key")) {}

export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()("IdempotencyConflict", {
  message: Schema.String
}, edge(409, "idempotency_conflict: the Idempotency-Key was used with another request")) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  message: Schema.String
}, edge(413, "payload_too_large: the body is over 1 MiB")) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  message: Schema.String
}, edge(415, "unsupported_media_type: the body is not application/json")) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}, edge(429, "rate_limited: retry after the number of seconds in Retry-After")) {}

/**
 * The engine's StorageUnavailable as the edge declares it (503), one schema for the groups and for
 * authentication (which reads stored keys), so that OpenAPI lists it once per endpoint.
 */
export const Unavailable = asErrorBody(StorageUnavailable).annotations(HttpApiSchema.annotations({ status: 503 }))
