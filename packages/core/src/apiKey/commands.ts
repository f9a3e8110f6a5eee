/** `workspaceId` and `keySha256` come from `parseApiKeyCreate`; `id` is `apiKeyIdOf(keySha256)`. */
export interface CreateApiKey {
  readonly type: "CreateApiKey"
  readonly id: string
  readonly at: string
  readonly workspaceId: string
  readonly keySha256: string
}

/** Revoking a revoked key again changes nothing. */
export interface RevokeApiKey {
  readonly type: "RevokeApiKey"
  readonly id: string
  readonly at: string
}

export type ApiKeyCommand = CreateApiKey | RevokeApiKey
