import type { JsonObject } from "../json.js"
import type { DocumentUpsert } from "../storage/documents.js"
import type { NewEvent } from "../storage/events.js"

/** Events and documents the storage contract suites commit. */

export const event = (workspaceId: string, type: string, data: JsonObject = {}, n = 0): NewEvent => ({
  type,
  data,
  metadata: { workspaceId, eventId: `evt_${type}_${n}`, requestId: null, actor: null }
})

export const upsert = (
  workspaceId: string,
  id: string,
  data: JsonObject,
  options: Partial<Pick<DocumentUpsert, "version" | "deletedAt" | "uniqueKey" | "collection">> = {}
): DocumentUpsert => ({
  _tag: "Upsert",
  collection: options.collection ?? "contact",
  workspaceId,
  id,
  version: options.version ?? 1,
  deletedAt: options.deletedAt ?? null,
  uniqueKey: options.uniqueKey ?? null,
  searchWords: [],
  data: { id, ...data }
})

let counter = 0
/** Fresh names per test so suites may share one database. */
export const fresh = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`
