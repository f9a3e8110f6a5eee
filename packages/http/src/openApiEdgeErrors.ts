import { errorBodyJsonSchema } from "./errors/ErrorBody.js"
import { ERROR_SCHEMA_NAMES } from "./errors/HttpErrors.js"

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

const REF = "#/components/schemas/"

/** Every `$ref` in the document through `rename`. */
const renameRefs = (value: unknown, rename: (ref: string) => string): unknown => {
  if (Array.isArray(value)) return value.map((item) => renameRefs(item, rename))
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([key, inner]) =>
    [key, key === "$ref" && typeof inner === "string" ? rename(inner) : renameRefs(inner, rename)]
  ))
}

/**
 * A record's standard fields and custom fields: HttpApi 4 documents a StructWithRest's record as
 * `allOf: [{additionalProperties}]`, which in JSON Schema applies to the standard fields as well
 * (as Effect 4's decoder does); the engine checks custom field values only, which is what
 * `additionalProperties` next to `properties` says.
 */
const customFieldsBesideProperties = (schema: unknown): unknown => {
  if (typeof schema !== "object" || schema === null) return schema
  const { allOf, ...rest } = schema as { allOf?: Array<Record<string, unknown>> } & Record<string, unknown>
  const only = allOf?.length === 1 ? allOf[0] : undefined
  if (rest["properties"] === undefined || rest["additionalProperties"] !== undefined || only === undefined) return schema
  const { additionalProperties, type, ...others } = only
  if (type !== "object" || additionalProperties === undefined || Object.keys(others).length > 0) return schema
  return { ...rest, additionalProperties }
}

interface Operation {
  parameters?: Array<{ description?: string; schema?: { description?: string } }>
  responses?: Record<string, { description: string }>
}

/**
 * Errors are declared with their own schemas (the engine's and the edge's, for typing and status
 * codes), which HttpApi documents field by field under `<Name>Encoded`; the host answers every
 * failure in the ErrorBody shape (errorResponse.ts), so the document says that under the error's
 * name, and lists the codes per status. HttpApi 4 describes a parameter in its schema only; the
 * description is the parameter's too, where documentation tools look for it.
 */
export const describeEdgeErrors = (spec: Record<string, any>): Record<string, any> => {
  const schemas: Record<string, unknown> = Object.fromEntries(
    Object.entries(spec["components"]?.["schemas"] ?? {}).map(([name, schema]) => [name, customFieldsBesideProperties(schema)])
  )
  const renamed = new Map<string, string>()
  for (const name of ERROR_SCHEMA_NAMES) {
    for (const generated of [`${name}Encoded`, name]) {
      if (!(generated in schemas)) continue
      delete schemas[generated]
      schemas[name] = errorBodyJsonSchema
      renamed.set(`${REF}${generated}`, `${REF}${name}`)
    }
  }
  const paths = renameRefs(spec["paths"], (ref) => renamed.get(ref) ?? ref) as Record<string, Record<string, Operation>>
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.description === undefined && parameter.schema?.description !== undefined) {
          parameter.description = parameter.schema.description
        }
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const codes = CODES_BY_STATUS[status]
        if (codes !== undefined) response.description = codes
      }
    }
  }
  return { ...spec, paths, components: { ...spec["components"], schemas } }
}
