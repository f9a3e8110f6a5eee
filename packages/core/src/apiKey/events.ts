import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/** `"*"` or a list of scopes (scopes.ts). */
export const ApiKeyScopesSchema = Schema.Union([Schema.Literal("*"), Schema.Array(Schema.String)])

/**
 * A key as the log keeps it: its digest, never the key. The digest is what a presented key is
 * looked up by, and a rebuild must find it again. `name`, `scopes` and `expires_at` came with key
 * management over the API: an event recorded before holds none of them, and is read (upcastApiKey)
 * as a key without a name, with every scope (`"*"`), that never expires.
 */
export const ApiKeyCreated = DomainEvent("api_key.created", {
  id: Schema.String,
  workspace_id: Schema.String,
  key_sha256: Schema.String,
  name: Schema.NullOr(Schema.String),
  scopes: ApiKeyScopesSchema,
  expires_at: Schema.NullOr(Schema.String),
  at: Schema.String
})
export type ApiKeyCreated = typeof ApiKeyCreated.Type

/** What a PATCH changed: only the fields whose value it changed. */
export const ApiKeyChanges = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  scopes: Schema.optionalKey(ApiKeyScopesSchema),
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type ApiKeyChanges = typeof ApiKeyChanges.Type

export const ApiKeyUpdated = DomainEvent("api_key.updated", { changed: ApiKeyChanges, at: Schema.String })
export type ApiKeyUpdated = typeof ApiKeyUpdated.Type

export const ApiKeyRevoked = DomainEvent("api_key.revoked", { at: Schema.String })
export type ApiKeyRevoked = typeof ApiKeyRevoked.Type

export const ApiKeyEvent = Schema.Union([ApiKeyCreated, ApiKeyUpdated, ApiKeyRevoked])
export type ApiKeyEvent = typeof ApiKeyEvent.Type
