import type { Projected } from "../decider.js"
import type { JsonObject } from "../json.js"
import type { ApiKeyEvent } from "./events.js"
import { type ApiKeyScopes, scopesOf } from "./scopes.js"

/**
 * The key's document, `{id, workspace_id, name, scopes, expires_at, created_at, revoked_at}`: what
 * `dealstream keys list` shows, and what a presented key is authenticated by. It is stored under the
 * key's digest (see apiKeyAggregate), so a presented key is found by one lookup; the digest itself is
 * not in the document, and the key never is anywhere.
 */
export const projectApiKey = (doc: Projected | null, event: ApiKeyEvent): Projected | null => {
  switch (event.type) {
    case "api_key.created": {
      const { at, expires_at, id, name, scopes, workspace_id } = event.data
      return { data: { id, workspace_id, name, scopes, expires_at, created_at: at, revoked_at: null }, deletedAt: null }
    }
    case "api_key.updated":
      return doc === null ? null : { ...doc, data: { ...doc.data, ...event.data.changed } }
    case "api_key.revoked":
      return doc === null ? null : { ...doc, data: { ...doc.data, revoked_at: event.data.at } }
  }
}

const textOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null)

/**
 * A key as the API shows it (`GET /v1/api-keys/:id`, the change feed's `api_key.*` events): its
 * document's fields in API.md's order, with when it was last used, and never its workspace (the
 * caller's own), its digest or the key. A document stored before names, scopes and expiries existed
 * reads as a key without a name, with `"*"`, that never expires.
 */
export const apiKeyView = (data: JsonObject, lastUsedAt: string | null): JsonObject => ({
  id: data["id"] ?? null,
  name: textOrNull(data["name"]),
  scopes: scopesOf(data["scopes"]),
  expires_at: textOrNull(data["expires_at"]),
  last_used_at: lastUsedAt,
  created_at: data["created_at"] ?? null,
  revoked_at: textOrNull(data["revoked_at"])
})

/** Who a valid key speaks for: its workspace, its public id, what it may do there, and until when. */
export interface ApiKeyOwner {
  readonly workspaceId: string
  readonly keyId: string
  readonly scopes: ApiKeyScopes
  /** Canonical ISO; null for a key that never expires. Whoever authenticates checks it against its clock. */
  readonly expiresAt: string | null
}

/**
 * The owner a key document grants, or null once the key is revoked. An expired key still has its
 * owner (with its `expiresAt`), so that it can be refused as expired rather than as unknown.
 */
export const ownerOf = (data: Projected["data"]): ApiKeyOwner | null => {
  const { id, revoked_at, workspace_id } = data
  return typeof id === "string" && typeof workspace_id === "string" && revoked_at === null
    ? { workspaceId: workspace_id, keyId: id, scopes: scopesOf(data["scopes"]), expiresAt: textOrNull(data["expires_at"]) }
    : null
}
