import type { Projected } from "../decider.js"
import type { ApiKeyEvent } from "./events.js"
import type { ApiKeyScopes } from "./scopes.js"

/**
 * The key's document, `{id, workspace_id, created_at, revoked_at}`: what `dealstream keys list`
 * shows. It is stored under the key's digest (see apiKeyAggregate), so a presented key is found by
 * one lookup; the digest itself is not in the document, and the key never is anywhere.
 */
export const projectApiKey = (doc: Projected | null, event: ApiKeyEvent): Projected | null => {
  switch (event.type) {
    case "api_key.created": {
      const { at, id, workspace_id } = event.data
      return { data: { id, workspace_id, created_at: at, revoked_at: null }, deletedAt: null }
    }
    case "api_key.revoked":
      return doc === null ? null : { ...doc, data: { ...doc.data, revoked_at: event.data.at } }
  }
}

/** Who a valid key speaks for: its workspace, its public id, and what it may do there. */
export interface ApiKeyOwner {
  readonly workspaceId: string
  readonly keyId: string
  readonly scopes: ApiKeyScopes
}

/** The owner a key document grants, or null once the key is revoked. */
export const ownerOf = (data: Projected["data"]): ApiKeyOwner | null => {
  const { id, revoked_at, workspace_id } = data
  // Keys stored before scopes existed hold none in their document: they may do everything.
  return typeof id === "string" && typeof workspace_id === "string" && revoked_at === null
    ? { workspaceId: workspace_id, keyId: id, scopes: "*" }
    : null
}
