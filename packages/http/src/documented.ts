import type { NonEmptyReadonlyArray } from "effect/Array"
import { type HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { Schema } from "effect"
import { Authentication } from "./auth/Authentication.js"
import {
  Conflicting,
  IdempotencyConflict,
  Invalid,
  InvalidJson,
  Missing,
  PayloadTooLarge,
  Stale,
  Unavailable,
  UnsupportedMediaType
} from "./errors/HttpErrors.js"

/**
 * Building blocks of the OpenAPI document. Request schemas here document; they do not decide:
 * bodies reach the engine as sent (custom fields differ per workspace and the engine's error
 * paths are the contract), so handlers read bodies themselves (`handleRaw`). Optional fields are
 * `optionalKey`: a key the client may leave out, never one it may send as null (unless the
 * schema says so with NullOr).
 */

/**
 * A path parameter as the engine may see it. `%00` decodes to U+0000, which no id or key holds and
 * PostgreSQL refuses as a bind parameter (a 500): it is an invalid path value (400) instead. (Lone
 * surrogates cannot arrive this way: a path that percent-decodes to one is no route.)
 */
export const PathText = Schema.String.check(
  Schema.makeFilter((text: string) => !text.includes("\u0000"), { message: "must not contain U+0000" })
)

export const exampleId = (prefix: string) => Schema.String.annotate({ examples: [`${prefix}_01jd7x4c2m8k9q3r5t6v7w8y9z`] })

export const Timestamp = Schema.String.annotate({
  description: "RFC 3339 UTC with milliseconds",
  examples: ["2026-11-21T22:34:47.807Z"],
  format: "date-time"
})

export const nullable = <S extends Schema.Top>(schema: S, description: string) =>
  Schema.NullOr(schema).annotate({ description })

/** The value type of a custom field (text, number, boolean, date `YYYY-MM-DD`, enum option) or null. */
export const CustomValue = Schema.Union([Schema.String, Schema.Finite, Schema.Boolean, Schema.Null]).annotate({
  description: "Custom field value, typed by its definition (text, number, boolean, date YYYY-MM-DD, enum option); null clears it."
})

/**
 * Custom field values are top-level keys of a record, next to its standard fields. (In a
 * StructWithRest, Effect 4 applies the record to the standard fields too; the OpenAPI document
 * says what the engine does, see openApiEdgeErrors.ts.)
 */
export const customFields = [Schema.Record(Schema.String, CustomValue)] as const

export const pageOf = <S extends Schema.Top>(item: S, identifier: string) =>
  Schema.Struct({
    data: Schema.Array(item),
    next_cursor: Schema.NullOr(Schema.String).annotate({
      description: "Pass as `cursor` to get the next page; null on the last page."
    })
  }).annotate({ identifier })

/**
 * A query parameter or header the client may leave out. Query values are strings; a parameter
 * given twice arrives as a list, which is what the message speaks of.
 */
export const optionalText = (description: string) =>
  Schema.optionalKey(Schema.String.annotate({ description, message: "must be given at most once" }))

export const pagingParams = {
  limit: optionalText("Page size, 1–100 (default 25). Out of range is 400, never clamped."),
  cursor: optionalText("The `next_cursor` of the previous page; only valid with the same sort and filter.")
}

export const queryParams = {
  ...pagingParams,
  search: optionalText("Case-insensitive prefix search: every term must start a word of the record."),
  filter: optionalText(
    "URL-encoded JSON filter: {\"field\": value} or {\"field\": {\"$op\": operand}} with $eq $ne $in $nin $gt $gte " +
      "$lt $lte $contains $starts_with $exists, combined with $and, $or, $not. Example: " +
      "{\"$or\":[{\"source\":\"webinar\"},{\"industry\":{\"$in\":[\"saas\"]}}]}"
  ),
  sort: optionalText("A sort field, `-field` for descending; ties are broken by id.")
}

export const idParams = { id: PathText }

/** 204, described as every success was before HttpApi 4 named it `<No Content>`. */
export const NoContent = HttpApiSchema.NoContent.annotate({ description: "Success" })

export const ifMatchHeader = {
  "if-match": optionalText("An ETag from a previous response (`\"<version>\"`) or `*`: the write happens only if it is still current (else 412).")
}

export const idempotencyHeader = {
  "idempotency-key": optionalText("Up to 255 characters. The same key with the same body within 24 h replays the stored answer (Idempotent-Replayed: true); with another body it is 409.")
}

/**
 * Every failure a /v1 endpoint can answer (the edge's and the engine's), each documented in the
 * ErrorBody shape; authentication adds its own (401, 429, 503).
 */
export const securedErrors = [
  Invalid,
  InvalidJson,
  Missing,
  Conflicting,
  IdempotencyConflict,
  Stale,
  PayloadTooLarge,
  UnsupportedMediaType,
  Unavailable
] as const

/**
 * A /v1 group: authenticated. A group's middleware applies to the endpoints it holds when it is
 * added (HttpApi 4), so the endpoints come first.
 */
export const securedGroup = <const Id extends string, const Endpoints extends NonEmptyReadonlyArray<HttpApiEndpoint.Constraint>>(
  id: Id,
  ...endpoints: Endpoints
) => HttpApiGroup.make(id).add(...endpoints).middleware(Authentication)
