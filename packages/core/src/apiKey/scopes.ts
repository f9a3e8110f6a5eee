/**
 * What an API key may do (API.md, "API key scopes"): `"*"`, everything in its workspace, or a list of
 * scopes, each an area and `read`, `write` or `manage`. Keys made before scopes existed, the keys a
 * host is given without any, and the dev key have `"*"`.
 */
export type ApiKeyScopes = "*" | ReadonlyArray<string>

/** The scopes of the built-in routes; a record type plug-in adds `<plural>:read` and `<plural>:write`. */
export const BUILT_IN_SCOPES = [
  "contacts:read",
  "contacts:write",
  "companies:read",
  "companies:write",
  "deals:read",
  "deals:write",
  "activities:read",
  "activities:write",
  "pipelines:read",
  "pipelines:write",
  "custom_fields:read",
  "custom_fields:write",
  "webhooks:manage",
  "events:read",
  "trash:manage",
  "privacy:manage",
  "keys:manage"
] as const

export const grants = (scopes: ApiKeyScopes, scope: string): boolean => scopes === "*" || scopes.includes(scope)

/** A scope's shape: an area (letters, digits, `_`) and what may be done in it. */
export const isScope = (text: string): boolean => /^[a-z][a-z0-9_]*:(read|write|manage)$/.test(text)
