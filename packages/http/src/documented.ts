import type { NonEmptyReadonlyArray } from "effect/Array"
import { type HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Schema } from "effect"
import { Authentication } from "./auth/Authentication.js"

/**
 * Building blocks of the records' schemas. Request bodies are documented here, not decoded by
 * HttpApi: bodies reach the engine as sent, since custom fields differ per workspace and the
 * engine's parsers, with their error paths, are the contract (for embedders too); and the edge
 * reads them itself (request/jsonBody.ts), because HttpApi's own reading answers other statuses
 * and messages (415 as text, a JSON syntax error as a validation_error). Handlers of endpoints
 * with a body are therefore `handleRaw`. Path, query and header values are decoded by HttpApi
 * (parameters.ts). Optional fields are `optionalKey`: a key the client may leave out, never one it
 * may send as null (unless the schema says so with NullOr).
 */

export const exampleId = (prefix: string) => Schema.String.annotate({ examples: [`${prefix}_01jd7x4c2m8k9q3r5t6v7w8y9z`] })

export const Timestamp = Schema.String.annotate({
  description: "RFC 3339 UTC with milliseconds",
  examples: ["2026-11-21T22:34:47.807Z"],
  format: "date-time"
})

export const nullable = <S extends Schema.Top>(schema: S, description: string) => Schema.NullOr(schema).annotate({ description })

/** The value type of a custom field (text, number, boolean, date `YYYY-MM-DD`, enum option) or null. */
export const CustomValue = Schema.Union([Schema.String, Schema.Finite, Schema.Boolean, Schema.Null]).annotate({
  description: "Custom field value, typed by its definition (text, number, boolean, date YYYY-MM-DD, enum option); null clears it."
})

/**
 * Custom field values are top-level keys of a record, next to its standard fields. (In a
 * StructWithRest, Effect 4 applies the record to the standard fields too; the OpenAPI document
 * says what the engine does, see openApi/document.ts.)
 */
export const customFields = [Schema.Record(Schema.String, CustomValue)] as const

/** A record's body or answer: its standard fields, and custom field values as further top-level keys. */
export const withCustomFields = <const F extends Schema.Struct.Fields>(
  fields: F,
  annotations: { readonly identifier: string; readonly description?: string }
) => Schema.StructWithRest(Schema.Struct(fields), customFields).annotate(annotations)

/** A list key an answer holds only at times: the ids of linked records, or the records expand puts in their place. */
export const optionalList = <S extends Schema.Top>(item: S, description: string) =>
  Schema.optionalKey(Schema.Array(item).annotate({ description }))

/** A record of another type in an expanded list, where that type's schema is not named. */
export const AnyRecord = Schema.Record(Schema.String, Schema.Unknown)

export const pageOf = <S extends Schema.Top>(item: S, identifier: string) =>
  Schema.Struct({
    data: Schema.Array(item),
    next_cursor: Schema.NullOr(Schema.String).annotate({
      description: "Pass as `cursor` to get the next page; null on the last page."
    })
  }).annotate({ identifier })

/**
 * A /v1 group: authenticated. A group's middleware applies to the endpoints it holds when it is
 * added (HttpApi 4), so the endpoints come first.
 */
export const securedGroup = <const Id extends string, const Endpoints extends NonEmptyReadonlyArray<HttpApiEndpoint.Constraint>>(
  id: Id,
  ...endpoints: Endpoints
) =>
  HttpApiGroup.make(id)
    .add(...endpoints)
    .middleware(Authentication)
