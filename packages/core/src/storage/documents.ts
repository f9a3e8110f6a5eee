import type { JsonObject } from "../json.js"
import type { RecordType } from "../recordTypes.js"

/** The engine's own document collections: each built-in record type's (recordTypes.ts) first. */
export type BuiltInCollection =
  | RecordType
  | "timeline_entry"
  /** What the pipeline figures are read from (deal/figureDocuments.ts). */
  | "deal_standing"
  | "stage_change"
  | "pipeline"
  | "custom_field"
  | "idempotency"
  | "workspace"
  | "webhook"
  /** Also a work queue: see DeliveryQueue. */
  | "delivery"
  /** Only in the reserved workspace SYSTEM_WORKSPACE, one per key, under the key's SHA-256 (hex). */
  | "api_key"
  /**
   * When each stored key was last used, under its key id, in SYSTEM_WORKSPACE: written by the hosts
   * at most once a minute per key, without an event (engine/records/apiKeys.ts says why).
   */
  | "api_key_use"

/** A plug-in record type's collection: its name (record/plugin.ts), known only at run time. */
export type PluginCollection = string & { readonly PluginCollection: unique symbol }

/** Document collections: the read models the API serves, the engine's own and the plug-ins'. */
export type Collection = BuiltInCollection | PluginCollection

export interface StoredDocument {
  readonly collection: Collection
  readonly workspaceId: string
  readonly id: string
  /** Version of the stream the document is projected from: the ETag. */
  readonly version: number
  /** Set while the record is soft-deleted. */
  readonly deletedAt: string | null
  /** The document exactly as the API returns it (derived fields such as `deal_ids` excepted). */
  readonly data: JsonObject
}

export interface DocumentUpsert extends StoredDocument {
  readonly _tag: "Upsert"
  /**
   * A key unique among the workspace's documents of this collection that carry one (e.g. the
   * lowercased email of a live contact). `null` takes part in no uniqueness.
   */
  readonly uniqueKey: string | null
  /**
   * The words a `search` term may be a prefix of (core's searchWordsOfDocument). Storage that cannot
   * evaluate Search nodes on `data` itself matches terms against these.
   */
  readonly searchWords: ReadonlyArray<string>
}

export interface DocumentRemove {
  readonly _tag: "Remove"
  readonly collection: Collection
  readonly workspaceId: string
  readonly id: string
}

export type DocumentWrite = DocumentUpsert | DocumentRemove
