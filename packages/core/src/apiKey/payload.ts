import { isJsonObject, type JsonObject } from "../json.js"
import type { ApiKeyEvent } from "./events.js"
import { apiKeyView } from "./projection.js"

/**
 * The `data` a key event is announced with in its workspace's change feed: `{api_key}`, the key as
 * `GET /v1/api-keys/:id` showed it once the event was committed (`view`, apiKeyView's), and for an
 * update `changed_fields`, as a record's `*.updated` says them. Never the key, never its digest.
 */
export const apiKeyPayload = (event: ApiKeyEvent, view: JsonObject): JsonObject =>
  event.type === "api_key.updated" ? { api_key: view, changed_fields: Object.keys(event.data.changed) } : { api_key: view }

/** Whether an event type is a key's. */
export const isApiKeyEventType = (type: string): boolean => type.startsWith("api_key.")

/**
 * A stored key payload with its keys in the order apiKeyPayload made them: PostgreSQL's jsonb
 * returns them by key length, and the feed shows an event the same way on every read and storage.
 */
export const apiKeyPayloadInOrder = (data: JsonObject): JsonObject => {
  const key = data["api_key"]
  const record = isJsonObject(key) ? apiKeyView(key, typeof key["last_used_at"] === "string" ? key["last_used_at"] : null) : null
  const changed = data["changed_fields"]
  return { api_key: record, ...(changed === undefined ? {} : { changed_fields: changed }) }
}
