import type { ApiKeyScopes } from "./scopes.js"

/**
 * `workspaceId` and `keySha256` come from `parseApiKeyCreate`; `id` is `apiKeyIdOf(keySha256)`.
 * `name`, `scopes` and `expiresAt` from the API's body or the CLI's flags (input.ts).
 */
export interface CreateApiKey {
  readonly type: "CreateApiKey"
  readonly id: string
  readonly at: string
  readonly workspaceId: string
  readonly keySha256: string
  readonly name: string | null
  readonly scopes: ApiKeyScopes
  /** Canonical ISO; null: the key never expires. */
  readonly expiresAt: string | null
}

/**
 * Whether the workspace keeps a way to manage its keys if this key loses its own: another of its
 * keys may manage keys (`keys:manage`) and never expires (or the caller's key, given to the host,
 * is one). Read by the engine from the workspace's keys, at the settings version the commit checks;
 * absent for the operator's CLI, which may change any key.
 */
export interface ManagerGuard {
  readonly othersManage: boolean
}

/** Only the fields given; a field given with its current value changes nothing. */
export interface UpdateApiKey {
  readonly type: "UpdateApiKey"
  readonly id: string
  readonly at: string
  readonly name?: string
  readonly scopes?: ApiKeyScopes
  readonly expiresAt?: string | null
  readonly guard?: ManagerGuard
}

/** Revoking a revoked key again changes nothing. */
export interface RevokeApiKey {
  readonly type: "RevokeApiKey"
  readonly id: string
  readonly at: string
  readonly guard?: ManagerGuard
}

export type ApiKeyCommand = CreateApiKey | UpdateApiKey | RevokeApiKey
