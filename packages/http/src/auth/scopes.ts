import { grants, type ApiKeyScopes } from "@dealstream/core"

/**
 * The scope each route needs (API.md, "API key scopes"), by the resource its path names and its
 * method, so a route added to a resource needs its resource's scope without being listed:
 *
 * | path under /v1                                  | GET                  | POST, PUT, PATCH, DELETE |
 * | ----------------------------------------------- | -------------------- | ------------------------ |
 * | contacts, companies, deals, activities, a plug-in's plural (notes) | `<resource>:read` | `<resource>:write` |
 * | pipelines (and their analytics)                 | `pipelines:read`     | `pipelines:write`        |
 * | custom-fields                                   | `custom_fields:read` | `custom_fields:write`    |
 * | webhooks, webhook-event-types                   | `webhooks:manage`    | `webhooks:manage`        |
 * | events                                          | `events:read`        | –                        |
 * | trash                                           | `trash:manage`       | –                        |
 * | api-keys                                        | `keys:manage`        | `keys:manage`            |
 * | contacts/:id/export, contacts/:id/erase         | `privacy:manage`     | `privacy:manage`         |
 *
 * `custom_fields:read` is ours beside API.md's list: a key that reads records may need the
 * definitions of their custom fields without being able to change them. Paths outside these are
 * no route (the router answers 404) or not under /v1 (probes, the document): no scope.
 */

const RECORDS = new Set(["contacts", "companies", "deals", "activities"])

const AREAS: Readonly<Record<string, { readonly read: string; readonly write: string }>> = {
  pipelines: { read: "pipelines:read", write: "pipelines:write" },
  "custom-fields": { read: "custom_fields:read", write: "custom_fields:write" },
  webhooks: { read: "webhooks:manage", write: "webhooks:manage" },
  "webhook-event-types": { read: "webhooks:manage", write: "webhooks:manage" },
  events: { read: "events:read", write: "events:read" },
  trash: { read: "trash:manage", write: "trash:manage" },
  "api-keys": { read: "keys:manage", write: "keys:manage" }
}

/**
 * The scope a request to `path` (no query string; a template such as `/v1/contacts/{id}` reads the
 * same) with `method` needs, or null for a path that names no resource. `plurals` are the record
 * type plug-ins' collections.
 */
export const scopeOf = (method: string, path: string, plurals: ReadonlySet<string>): string | null => {
  const [, v1, resource, id, action] = path.split("/")
  if (v1 !== "v1" || resource === undefined) return null
  const reads = method === "GET" || method === "HEAD"
  if (resource === "contacts" && id !== undefined && id !== "export" && (action === "export" || action === "erase")) return "privacy:manage"
  if (RECORDS.has(resource) || plurals.has(resource)) return `${resource}:${reads ? "read" : "write"}`
  const area = AREAS[resource]
  return area === undefined ? null : reads ? area.read : area.write
}

/** Whether a collection under /v1 is one of the built-in areas (the others are record type plug-ins'). */
export const isBuiltInArea = (resource: string): boolean => RECORDS.has(resource) || AREAS[resource] !== undefined

/** The scope the request needs and the key lacks, or null when it may go on. */
export const missingScope = (scopes: ApiKeyScopes, method: string, path: string, plurals: ReadonlySet<string>): string | null => {
  const needed = scopeOf(method, path, plurals)
  return needed === null || grants(scopes, needed) ? null : needed
}
