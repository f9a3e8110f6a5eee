import { Conflict, NotFound, PreconditionFailed, ValidationError } from "@dealstream/core"
import { HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./auth/Authentication.js"
import { asErrorBody } from "./errors/ErrorBody.js"
import { IdempotencyConflict, InvalidJson, PayloadTooLarge, Unavailable, UnsupportedMediaType } from "./errors/HttpErrors.js"

/**
 * Building blocks of the OpenAPI document. Request schemas here document; they do not decide:
 * bodies reach the engine as sent (custom fields differ per workspace and the engine's error
 * paths are the contract), so handlers read bodies themselves (`handleRaw`).
 */

/**
 * A path parameter as the engine may see it. `%00` decodes to U+0000, which no id or key holds and
 * PostgreSQL refuses as a bind parameter (a 500): it is an invalid path value (400) instead. (Lone
 * surrogates cannot arrive this way: a path that percent-decodes to one is no route.)
 */
export const PathText = Schema.String.pipe(
  Schema.filter((text) => !text.includes("\u0000"), { message: () => "must not contain U+0000" })
)

export const idParam = HttpApiSchema.param("id", PathText)

export const exampleId = (prefix: string) =>
  Schema.String.annotations({ examples: [`${prefix}_01jd7x4c2m8k9q3r5t6v7w8y9z`] })

export const Timestamp = Schema.String.annotations({
  description: "RFC 3339 UTC with milliseconds",
  examples: ["2026-11-21T22:34:47.807Z"],
  jsonSchema: { type: "string", format: "date-time" }
})

export const nullable = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.NullOr(schema).annotations({ description })

/** The value type of a custom field (text, number, boolean, date `YYYY-MM-DD`, enum option) or null. */
export const CustomValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null).annotations({
  description: "Custom field value, typed by its definition (text, number, boolean, date YYYY-MM-DD, enum option); null clears it."
})

export const customFields = Schema.Record({ key: Schema.String, value: CustomValue })

export const pageOf = <S extends Schema.Schema.Any>(item: S, identifier: string) =>
  Schema.Struct({
    data: Schema.Array(item),
    next_cursor: Schema.NullOr(Schema.String).annotations({
      description: "Pass as `cursor` to get the next page; null on the last page."
    })
  }).annotations({ identifier })

export const optionalText = (description: string) => Schema.optional(Schema.String.annotations({ description }))

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

export const ifMatchHeader = Schema.Struct({
  "if-match": optionalText("An ETag from a previous response (`\"<version>\"`) or `*`: the write happens only if it is still current (else 412).")
})

export const idempotencyHeader = Schema.Struct({
  "idempotency-key": optionalText("Up to 255 characters. The same key with the same body within 24 h replays the stored answer (Idempotent-Replayed: true); with another body it is 409.")
})

/**
 * A /v1 group: authenticated, and documented with every failure its endpoints can answer (the
 * edge's and the engine's), each in the ErrorBody shape.
 */
export const securedGroup = <const Id extends string>(id: Id) =>
  HttpApiGroup.make(id)
    .addError(asErrorBody(ValidationError), { status: 400 })
    .addError(InvalidJson)
    .addError(asErrorBody(NotFound), { status: 404 })
    .addError(asErrorBody(Conflict), { status: 409 })
    .addError(IdempotencyConflict)
    .addError(asErrorBody(PreconditionFailed), { status: 412 })
    .addError(PayloadTooLarge)
    .addError(UnsupportedMediaType)
    .addError(Unavailable)
    .middleware(Authentication)
