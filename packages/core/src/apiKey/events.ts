import type { DomainEvent } from "../storage/events.js"

/**
 * A key as the log keeps it: its digest, never the key. The digest is what a presented key is
 * looked up by, and a rebuild must find it again.
 */
export type ApiKeyCreated = DomainEvent<"api_key.created", {
  readonly id: string
  readonly workspace_id: string
  readonly key_sha256: string
  readonly at: string
}>

export type ApiKeyRevoked = DomainEvent<"api_key.revoked", { readonly at: string }>

export type ApiKeyEvent = ApiKeyCreated | ApiKeyRevoked
