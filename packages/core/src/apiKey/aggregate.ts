import { type Aggregate, documentWrite, foldProjection } from "../aggregate.js"
import type { DomainEvent, StoredEvent } from "../storage/events.js"
import type { ApiKeyCommand } from "./commands.js"
import { apiKeyDecider, type ApiKeyState } from "./decider.js"
import { ApiKeyEvent } from "./events.js"
import { SYSTEM_WORKSPACE } from "./input.js"
import { projectApiKey } from "./projection.js"

/**
 * A key created before key management over the API holds no name, scopes or expiry: it has no
 * name, may do everything (`"*"`) and never expires.
 */
export const upcastApiKey = (stored: DomainEvent): DomainEvent => {
  if (stored.type !== "api_key.created" || Object.hasOwn(stored.data, "scopes")) return stored
  const { at, ...rest } = stored.data
  return { type: stored.type, data: { ...rest, name: null, scopes: "*", expires_at: null, ...(at === undefined ? {} : { at }) } }
}

/**
 * A key's stream belongs to the workspace the key is for: its events are that workspace's (its
 * change feed hands them out, `settings` below moves its settings version). Keys made before were
 * recorded in SYSTEM_WORKSPACE; their later events go to the key's workspace, named by the first.
 */
const workspaceOf = (first: StoredEvent): string => {
  const named = first.data["workspace_id"]
  return first.metadata.workspaceId === SYSTEM_WORKSPACE && typeof named === "string" ? named : first.metadata.workspaceId
}

/**
 * The key's document lives in the reserved workspace, stored under its digest, so authenticating a
 * presented key is one getDocument. Its events are the key's workspace's.
 *
 * A settings stream: every key event moves the workspace's settings version on, and a command that
 * must know the workspace's other keys (the last one that may manage keys cannot be revoked) reads
 * them at a settings version its commit checks, so two racing revocations cannot both pass.
 */
export const apiKeyAggregate: Aggregate<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  name: "api_key",
  prefix: "key",
  decider: apiKeyDecider,
  events: ApiKeyEvent,
  upcast: upcastApiKey,
  workspaceOf,
  olderLog: SYSTEM_WORKSPACE,
  project: projectApiKey,
  // The document's id is the digest only the first event holds.
  documents: (_stream, { all = [], version }) => {
    const created = all.find((event) => event.type === "api_key.created")
    if (created === undefined) return []
    return [documentWrite("api_key", SYSTEM_WORKSPACE, created.data.key_sha256, version, foldProjection(projectApiKey, all))]
  },
  documentsNeedHistory: () => true,
  settings: true,
  collections: ["api_key"],
  rebuilt: false
}
