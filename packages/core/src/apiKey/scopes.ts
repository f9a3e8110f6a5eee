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

/** The scope that lets a key manage the workspace's keys (GET/POST/PATCH/DELETE /v1/api-keys). */
export const KEYS_MANAGE = "keys:manage"

export const grants = (scopes: ApiKeyScopes, scope: string): boolean => scopes === "*" || scopes.includes(scope)

/** A scope's shape: an area (letters, digits, `_`) and what may be done in it. */
export const isScope = (text: string): boolean => /^[a-z][a-z0-9_]*:(read|write|manage)$/.test(text)

/** Every scope a key may be given on an engine serving record type plug-ins of these plurals. */
export const knownScopes = (plurals: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...BUILT_IN_SCOPES,
  ...plurals.flatMap((plural) => [`${plural}:read`, `${plural}:write`])
]

/**
 * The first scope of `requested` that a key of `granter`'s scopes may not hand out, or null: a key
 * grants only what it holds itself, and `"*"` only when it has `"*"`. The scope named for `"*"`
 * requested by a key with a list is `"*"`.
 */
export const scopeNotHeld = (granter: ApiKeyScopes, requested: ApiKeyScopes): string | null => {
  if (granter === "*") return null
  if (requested === "*") return "*"
  return requested.find((scope) => !granter.includes(scope)) ?? null
}

/**
 * Scopes as a key's document holds them: `"*"`, or a list. A document written before scopes existed
 * holds none, which means `"*"`; a value of any other shape grants nothing.
 */
export const scopesOf = (value: unknown): ApiKeyScopes =>
  value === undefined || value === "*"
    ? "*"
    : Array.isArray(value)
      ? value.filter((scope): scope is string => typeof scope === "string")
      : []
