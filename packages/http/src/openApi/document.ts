import { customFieldsBesideProperties } from "./customFields.js"
import { DESCRIPTIONS, errorSchemas, internalErrorResponse } from "./errors.js"
import { hostHeaders, spelled } from "./headers.js"
import { describeParameter } from "./parameters.js"
import { positionHeaders } from "./positions.js"
import { isBuiltInArea, scopeOf } from "../auth/scopes.js"

/**
 * The OpenAPI document as HttpApi generates it, made to say what the host does (the API's
 * OpenApi.Transform): errors in the one body the host answers them with, every operation's
 * possible 500, the headers the host and the middleware add, parameters typed by the values they
 * take, and records whose custom fields sit beside the standard ones.
 */

/** Every `$ref` in the document through `rename`. */
const renameRefs = (value: unknown, rename: (ref: string) => string): unknown => {
  if (Array.isArray(value)) return value.map((item) => renameRefs(item, rename))
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === "$ref" && typeof inner === "string" ? rename(inner) : renameRefs(inner, rename)
    ])
  )
}

interface Header {
  description?: string
  required?: boolean
  schema?: Record<string, unknown>
}

interface Response {
  description: string
  headers?: Record<string, Header>
  content?: unknown
}

interface Operation {
  parameters?: Array<Parameters<typeof describeParameter>[0]>
  security?: Array<Record<string, unknown>>
  responses?: Record<string, Response>
}

/** An endpoint's own headers under their written names, described where tools look; then the host's. */
const withHeaders = (response: Response, status: string, secured: boolean): Response => {
  const declared = Object.fromEntries(
    Object.entries(response.headers ?? {}).map(([name, header]) => {
      const description = header.description ?? (header.schema?.["description"] as string | undefined)
      return [spelled(name), description === undefined ? header : { description, ...header }]
    })
  )
  return { ...response, headers: { ...hostHeaders(status, secured), ...declared } }
}

const describeOperation = (method: string, operation: Operation, scope: string | null): Operation => {
  const secured = (operation.security ?? []).length > 0
  const responses = { ...operation.responses, ...internalErrorResponse() }
  const positions = secured ? positionHeaders(method) : null
  return {
    ...operation,
    // The one scope the operation needs (auth/scopes.ts), as OpenAPI names a requirement's scopes.
    ...(secured && scope !== null
      ? {
          security: (operation.security ?? []).map((requirement) =>
            Object.fromEntries(Object.keys(requirement).map((name) => [name, [scope]]))
          )
        }
      : {}),
    parameters: [
      ...(operation.parameters ?? []).map(describeParameter),
      ...(positions?.parameter === undefined ? [] : [positions.parameter])
    ],
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, response]) => {
        const description = DESCRIPTIONS[status] ?? response.description
        const described = withHeaders({ ...response, description }, status, secured)
        return [
          status,
          positions?.header !== undefined && status.startsWith("2")
            ? { ...described, headers: { ...described.headers, ...positions.header } }
            : described
        ]
      })
    )
  }
}

/** An export's 200 carries the change feed cursor of its state (export/exportAnswer.ts). */
const withFeedCursor = (path: string, method: string, operation: Operation): Operation => {
  const ok = operation.responses?.["200"]
  if (method !== "get" || !path.endsWith("/export") || ok === undefined) return operation
  const cursor = {
    description:
      "The change feed's position of the state the export comes from: `GET /v1/events?after=<it>` gives exactly the changes the export does not hold. Absent while the workspace has no event (then follow the feed from its start).",
    required: false,
    schema: { type: "string" }
  }
  return {
    ...operation,
    responses: { ...operation.responses, "200": { ...ok, headers: { ...ok.headers, "Dealstream-Feed-Cursor": cursor } } }
  }
}

export const describeDocument = (spec: Record<string, any>): Record<string, any> => {
  const records = Object.fromEntries(
    Object.entries(spec["components"]?.["schemas"] ?? {}).map(([name, schema]) => [name, customFieldsBesideProperties(schema)])
  )
  const { renamed, schemas } = errorSchemas(records)
  const paths = renameRefs(spec["paths"], (ref) => renamed.get(ref) ?? ref) as Record<string, Record<string, Operation>>
  // The collections under /v1 that no built-in area names are record type plug-ins'.
  const plurals = new Set(
    Object.keys(paths)
      .map((path) => path.split("/")[2] ?? "")
      .filter((resource) => resource !== "" && !isBuiltInArea(resource))
  )
  const described = Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [
          method,
          withFeedCursor(path, method, describeOperation(method, operation, scopeOf(method.toUpperCase(), path, plurals)))
        ])
      )
    ])
  )
  return { ...spec, paths: described, components: { ...spec["components"], schemas } }
}
