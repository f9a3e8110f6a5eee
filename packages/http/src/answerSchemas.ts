import { HttpApiSchema } from "effect/http-api"
import { Schema } from "effect"
import {
  Conflicting,
  IdempotencyConflict,
  Invalid,
  InvalidJson,
  Missing,
  PayloadTooLarge,
  Stale,
  UnsupportedMediaType
} from "./errors/HttpErrors.js"

/**
 * What each kind of endpoint answers: its success with the headers that come with it
 * (replies.ts sends them), and the failures it can answer besides authentication's (401, 429,
 * 503, declared by the Authentication middleware) and a 500 (every operation; see
 * openApi/document.ts). Handlers return their responses themselves, so these schemas type the
 * document and the clients generated from it.
 */

// A filter of our own: HttpApi leaves an isPattern check out of a header's schema.
const ETag = Schema.String.check(
  Schema.makeFilter((etag: string) => /^"[0-9]+"$/.test(etag), { toJsonSchema: () => ({ pattern: '^"[0-9]+"$' }) })
).annotate({
  description: 'The record\'s version, `"<version>"`; send it in If-Match to make a write conditional.'
})

const Location = Schema.String.annotate({ description: "The path of the new record.", format: "uri-reference" })

const Replayed = Schema.Literal("true").annotate({
  description: "Present on an answer replayed for a repeated Idempotency-Key, which carries no ETag."
})

/** One record (GET, PATCH, PUT): 200 with its ETag. */
export const single = <S extends Schema.Top>(schema: S) => HttpApiSchema.WithHeaders(schema, { etag: ETag })

/**
 * A POST whose answer the Idempotency-Key rules may replay: a replayed answer is the stored one,
 * which keeps its Location but has no ETag (the version is not stored with it).
 */
const replayable = {
  etag: Schema.optionalKey(ETag),
  "idempotent-replayed": Schema.optionalKey(Replayed)
}

/** A new record: 201 with its Location. */
export const created = <S extends Schema.Top>(schema: S) =>
  HttpApiSchema.WithHeaders(schema, { location: Location, ...replayable }).pipe(HttpApiSchema.status(201))

/**
 * A new record whose answer is never replayed, as it holds a secret shown once and stored nowhere
 * (a new API key): 201 with its Location and ETag.
 */
export const createdOnce = <S extends Schema.Top>(schema: S) =>
  HttpApiSchema.WithHeaders(schema, { location: Location, etag: ETag }).pipe(HttpApiSchema.status(201))

/** A POST answered 200 that the Idempotency-Key rules may replay: a restored record, a batch's results. */
export const replayable200 = <S extends Schema.Top>(schema: S) => HttpApiSchema.WithHeaders(schema, replayable)

/** A restored record: 200. */
export const restored = replayable200

/** Work accepted for later (a delivery replay): 202 with the Location of what will be done. */
export const accepted = <S extends Schema.Top>(schema: S) =>
  HttpApiSchema.WithHeaders(schema, { location: Location, ...replayable }).pipe(HttpApiSchema.status(202))

/** 204, described as every success was before HttpApi 4 named it `<No Content>`. */
export const NoContent = HttpApiSchema.NoContent.annotate({ description: "Success" })

// Every /v1 endpoint checks its path and query (400); reads of one record may not find it (404);
// every write may meet a concurrent writer or a taken unique value (409); bodies are read by the
// edge (413, 415, invalid_json); If-Match makes writes conditional (412); a POST's Idempotency-Key
// may have been used for another request (409), and a retry of a write whose answer was lost is
// answered from the record, which may be gone by then (404).

/** GET of a list. */
export const listErrors = [Invalid] as const
/** GET of one record, or of a list under one record. */
export const readErrors = [Invalid, Missing] as const
/** POST of a new record. */
export const createErrors = [
  Invalid,
  InvalidJson,
  Missing,
  Conflicting,
  IdempotencyConflict,
  PayloadTooLarge,
  UnsupportedMediaType
] as const
/** POST of a batch: its operations' own errors are in its results (batch.ts). */
export const batchErrors = [Invalid, InvalidJson, Conflicting, IdempotencyConflict, PayloadTooLarge, UnsupportedMediaType] as const
/**
 * POST of a custom field definition: its lost answer cannot be read again (definitions have no GET).
 * Also POST of an API key, whose answer is never stored nor read again (createdOnce).
 */
export const defineErrors = [Invalid, InvalidJson, Conflicting, IdempotencyConflict, PayloadTooLarge, UnsupportedMediaType] as const
/** PATCH or PUT of one record. */
export const writeErrors = [Invalid, InvalidJson, Missing, Conflicting, Stale, PayloadTooLarge, UnsupportedMediaType] as const
/** DELETE of one record. */
export const deleteErrors = [Invalid, Missing, Conflicting, Stale] as const
/** POST without a body (restore, replay), under the Idempotency-Key rules. */
export const actionErrors = [Invalid, Missing, Conflicting, IdempotencyConflict] as const
