import { Conflict, NotFound, PreconditionFailed, StorageUnavailable, ValidationError } from "@dealstream/core"
import { HttpApiSchema } from "effect/http-api"
import { Schema } from "effect"
import { ERRORS, type ErrorTag } from "./errorTable.js"

/**
 * Failures the HTTP edge itself detects (the engine never sees these requests). Domain failures
 * come from @dealstream/core; both become an ErrorBody in errorResponse.ts, which is what the
 * OpenAPI document shows for them (openApi/errors.ts). Each carries its row's status (errorTable.ts)
 * as HttpApi's status annotation, which places it in the operations' responses.
 */

/** The annotations of an edge error: its status, and its code with what it means. */
const row = (tag: ErrorTag) => ({ httpApiStatus: ERRORS[tag].status, description: `${ERRORS[tag].code}: ${ERRORS[tag].description}` })

export class InvalidJson extends Schema.TaggedError<InvalidJson>()(
  "InvalidJson",
  {
    message: Schema.String
  },
  row("InvalidJson")
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  {
    message: Schema.String
  },
  row("Unauthorized")
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  {
    message: Schema.String,
    scope: Schema.String
  },
  row("Forbidden")
) {}

export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()(
  "IdempotencyConflict",
  {
    message: Schema.String
  },
  row("IdempotencyConflict")
) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  {
    message: Schema.String
  },
  row("PayloadTooLarge")
) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  {
    message: Schema.String
  },
  row("UnsupportedMediaType")
) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  {
    message: Schema.String,
    retryAfterSeconds: Schema.Finite
  },
  row("RateLimited")
) {}

/**
 * The engine's NotFound of a record merged into another, as the edge answers it (308, errorResponse.ts):
 * declared by the endpoints of the record types that merge, so that their documents show it.
 */
export class MergedRecord extends Schema.TaggedError<MergedRecord>()(
  "Merged",
  {
    message: Schema.String
  },
  row("Merged")
) {}

/** An engine error with its row's status (a TaggedError's identifier is its tag). */
const declared = <S extends Schema.Top & { readonly identifier: string; readonly Type: { readonly _tag: ErrorTag } }>(
  error: S
): S["Rebuild"] => error.pipe(HttpApiSchema.status(ERRORS[error.identifier as S["Type"]["_tag"]].status))

// The engine's errors with the status the edge answers them with. One schema each, shared by
// every endpoint and by authentication (which reads stored keys: 503), so that OpenAPI lists each
// once per operation.
export const Invalid = declared(ValidationError)
export const Missing = declared(NotFound)
export const Conflicting = declared(Conflict)
export const Stale = declared(PreconditionFailed)
export const Unavailable = declared(StorageUnavailable)
