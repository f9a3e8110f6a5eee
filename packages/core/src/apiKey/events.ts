import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/**
 * A key as the log keeps it: its digest, never the key. The digest is what a presented key is
 * looked up by, and a rebuild must find it again.
 */
export const ApiKeyCreated = DomainEvent("api_key.created", {
  id: Schema.String,
  workspace_id: Schema.String,
  key_sha256: Schema.String,
  at: Schema.String
})
export type ApiKeyCreated = typeof ApiKeyCreated.Type

export const ApiKeyRevoked = DomainEvent("api_key.revoked", { at: Schema.String })
export type ApiKeyRevoked = typeof ApiKeyRevoked.Type

export const ApiKeyEvent = Schema.Union([ApiKeyCreated, ApiKeyRevoked])
export type ApiKeyEvent = typeof ApiKeyEvent.Type
