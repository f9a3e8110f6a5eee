import { Context, type Effect, type Stream } from "effect"
import { Schema } from "effect"
import type { StorageUnavailable } from "../errors.js"
import type { DocumentQuery } from "../query/ast.js"
import type { DuplicateCollection, DuplicateGroup, DuplicateKey } from "../record/duplicateKeys.js"
import type { Collection, DocumentWrite, StoredDocument } from "./documents.js"
import type { FiguresQuery } from "./figures.js"
import type { NewEvent, StoredEvent } from "./events.js"
import type { ChangeFeedEvent, ChangeFeedPage, ChangeFeedPosition, ChangeFeedTypes } from "./changeFeed.js"
import type { StoragePosition } from "./positions.js"
import type { InlineWrite, ProjectionFailed } from "./inlineProjection.js"

/** Events to append to one stream, valid only if the stream is still at `expectedVersion`. */
export interface StreamAppend {
  readonly streamId: string
  /** 0 for a stream that must not exist yet. */
  readonly expectedVersion: number
  readonly events: ReadonlyArray<NewEvent>
  /**
   * A settings stream (custom field definitions, a pipeline, a webhook): appending to it moves its
   * workspace's settings version on, in the same commit, and tells every host (settingsChanges).
   */
  readonly settings?: boolean
}

/**
 * The settings version of a workspace that a decision read its settings at (the custom field
 * catalog, pipelines and active webhooks, which hosts keep in memory): the commit stores nothing and
 * fails with VersionConflict (streamId `settings:<workspaceId>`) unless it still holds.
 */
export interface SettingsRead {
  readonly workspaceId: string
  readonly version: number
}

/**
 * What a host hears of settings changed by any host: a workspace whose settings version moved on, or
 * `Resumed` after it could not listen for a while (anything may have changed meanwhile).
 */
export type SettingsChange = { readonly _tag: "Changed"; readonly workspaceId: string } | { readonly _tag: "Resumed" }

/** What `feedChanges` tells. */
export type FeedChange = { readonly _tag: "Appended"; readonly workspaceId: string } | { readonly _tag: "Resumed" }

/**
 * One atomic unit of change: all of it is stored, or none of it is.
 * `redactStreams` replaces the data of every earlier event of those streams with `{redacted: true}`
 * (purge erases personal data from the log; the events themselves, a tombstone, remain).
 */
export interface Commit {
  readonly streams: ReadonlyArray<StreamAppend>
  readonly documents: ReadonlyArray<DocumentWrite>
  readonly redactStreams?: ReadonlyArray<string>
  readonly settingsRead?: ReadonlyArray<SettingsRead>
  /**
   * What the inline projections make of its events (inlineProjection.ts): run inside the commit,
   * stored or undone with it. A failure stores nothing and fails the commit with ProjectionFailed.
   */
  readonly inline?: ReadonlyArray<InlineWrite>
}

export interface CommitResult {
  /** The appended events in order, with their sequence, stream version and recorded time. */
  readonly events: ReadonlyArray<StoredEvent>
}

export class VersionConflict extends Schema.TaggedError<VersionConflict>()("VersionConflict", {
  streamId: Schema.String,
  expectedVersion: Schema.Number,
  actualVersion: Schema.Number
}) {}

export class UniqueViolation extends Schema.TaggedError<UniqueViolation>()("UniqueViolation", {
  collection: Schema.String,
  uniqueKey: Schema.String,
  /** The document that already holds the key. */
  existingId: Schema.String
}) {}

export interface ExpiredRecord {
  readonly workspaceId: string
  readonly id: string
}

/** Documents that name a record in one of their id arrays: the deals whose `contact_ids` name a contact. */
export interface LinkedDocuments {
  readonly collection: Collection
  readonly field: string
}

export interface RecordRead {
  readonly document: StoredDocument | null
  readonly linkedIds: ReadonlyArray<string>
  readonly settingsVersion: number
}

export interface RecordsRead {
  readonly rows: ReadonlyArray<{ readonly document: StoredDocument; readonly linkedIds: ReadonlyArray<string> }>
  readonly settingsVersion: number
}

export interface StorageService {
  readonly commit: (
    commit: Commit
  ) => Effect.Effect<CommitResult, VersionConflict | UniqueViolation | ProjectionFailed | StorageUnavailable>
  /**
   * The events of one stream in version order (empty for an unknown stream): all of them, or those
   * after version `after`, so a host that knows a stream up to a version reads only what came since.
   * With `workspaceId`, the workspace whose log holds the stream, only that log's events are read:
   * on a storage spread over servers by workspace (PostgreSQL on Citus) the read goes to one server.
   */
  readonly readStream: (
    streamId: string,
    after?: number,
    workspaceId?: string
  ) => Effect.Effect<ReadonlyArray<StoredEvent>, StorageUnavailable>
  /**
   * A number that moves on with every commit appending to one of the workspace's settings streams
   * (0 for a workspace without any). Read it before the settings it stands for: a change committed
   * in between then shows as a newer version at the commit, never as a stale decision.
   */
  readonly settingsVersion: (workspaceId: string) => Effect.Effect<number, StorageUnavailable>
  /**
   * Settings changes of every host while consumed (best effort and quick; correctness rests on the
   * commit's settingsRead check). Fails with StorageUnavailable when it cannot listen any more.
   */
  readonly settingsChanges: Stream.Stream<SettingsChange, StorageUnavailable>
  /** Events with `sequence > after`, in sequence order, at most `limit`. */
  readonly readLog: (options: {
    readonly after: number
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<StoredEvent>, StorageUnavailable>
  /**
   * One workspace's events after position `after` (from the start with null) up to `until`
   * (inclusive; to the end without it), of the given types (all without `types`), at most `limit`,
   * in the change feed's order and each with its feed position (readFeed's): an order that holds on
   * a storage spread over servers when a workspace moves to another one, where sequences do not.
   * Unlike readFeed nothing is held back: a commit still in flight may later land below a position
   * already read. A stream's events come in version order but for such a commit racing the one
   * before it; a reader that folds streams sorts each by version.
   */
  readonly readWorkspaceLog: (options: {
    readonly workspaceId: string
    readonly after: ChangeFeedPosition | null
    readonly until?: ChangeFeedPosition
    readonly types?: ReadonlyArray<string>
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<ChangeFeedEvent>, StorageUnavailable>
  /**
   * The change feed: one workspace's events after a position (from the start without one), in
   * commit order, of the types the patterns keep, at most `limit`. Gap-free: an event is given
   * only once no transaction still running can commit an event before it (see ChangeFeedPosition), so a
   * reader that follows the positions sees every event of the workspace exactly once.
   */
  readonly readFeed: (options: {
    readonly workspaceId: string
    readonly after: ChangeFeedPosition | null
    readonly types: ChangeFeedTypes
    readonly limit: number
  }) => Effect.Effect<ChangeFeedPage, StorageUnavailable>
  /**
   * The live document of a workspace holding a unique key (a contact's `email:<lowercased>`), or
   * null: what an upsert matches on.
   */
  readonly documentByUniqueKey: (
    collection: Collection,
    workspaceId: string,
    uniqueKey: string
  ) => Effect.Effect<StoredDocument | null, StorageUnavailable>
  /** One event of a workspace by its public id (`evt_…`); null when the workspace has none such. */
  readonly readEvent: (workspaceId: string, eventId: string) => Effect.Effect<StoredEvent | null, StorageUnavailable>
  /**
   * Workspaces whose change feed gained events (of any type a feed reader may ask for), told by
   * every host once the commit is stored; `Resumed` after a lost listening connection stands for
   * any told meanwhile. Best effort and quick: a feed reader that waits still reads again now and
   * then (see ChangeFeedPosition for why a told event may not be readable at once).
   */
  readonly feedChanges: Stream.Stream<FeedChange, StorageUnavailable>
  /** A document whatever its deletedAt; null when absent. */
  readonly getDocument: (
    collection: Collection,
    workspaceId: string,
    id: string
  ) => Effect.Effect<StoredDocument | null, StorageUnavailable>
  /**
   * What a record read needs, in one step (one statement on PostgreSQL): the document whatever its
   * deletedAt (null when absent), the ids of the live documents of `linked.collection` whose id
   * array `linked.field` names it, in id order (empty without `linked`), and the workspace's
   * settings version (see settingsVersion), all from one snapshot.
   */
  readonly readRecord: (
    collection: Collection,
    workspaceId: string,
    id: string,
    linked: LinkedDocuments | null
  ) => Effect.Effect<RecordRead, StorageUnavailable>
  /**
   * A page of queryDocuments with, per document, readRecord's linked ids, and the settings version,
   * all from one snapshot (one statement on PostgreSQL): a list page of contacts with their deal_ids.
   */
  readonly queryRecords: (
    collection: Collection,
    workspaceId: string,
    query: DocumentQuery,
    linked: LinkedDocuments | null
  ) => Effect.Effect<RecordsRead, StorageUnavailable>
  /** The documents with these ids (whatever their deletedAt), in no particular order; absent ids are left out. */
  readonly getDocuments: (
    collection: Collection,
    workspaceId: string,
    ids: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<StoredDocument>, StorageUnavailable>
  /**
   * A page of a collection's documents (DocumentQuery); or, for a FiguresQuery (figures.ts), the
   * rows of that aggregate over the figure documents, each a document whose `data` is the row.
   */
  readonly queryDocuments: (
    collection: Collection,
    workspaceId: string,
    query: DocumentQuery | FiguresQuery
  ) => Effect.Effect<ReadonlyArray<StoredDocument>, StorageUnavailable>
  /**
   * Live documents across workspaces whose data holds a non-null `key`, in (workspace, id) order:
   * work that any host may pick up, such as a webhook's running recovery. Meant for collections
   * that stay small (webhooks).
   */
  readonly documentsWith: (
    collection: Collection,
    key: string,
    limit: number
  ) => Effect.Effect<ReadonlyArray<StoredDocument>, StorageUnavailable>
  /**
   * Groups of a workspace's live contacts or companies that share a duplicate key (record/
   * duplicateKeys.ts), after `after` in (rule, key) order, at most `limit`, each group's ids in
   * order. PostgreSQL reads them from an index kept in the commit; memory storage reads the records.
   */
  readonly duplicates: (
    collection: DuplicateCollection,
    workspaceId: string,
    after: DuplicateKey | null,
    limit: number
  ) => Effect.Effect<ReadonlyArray<DuplicateGroup>, StorageUnavailable>
  /** Soft-deleted documents whose deletedAt is at or before `cutoff`, across workspaces. */
  readonly listDeletedBefore: (
    collection: Collection,
    cutoff: string,
    limit: number
  ) => Effect.Effect<ReadonlyArray<ExpiredRecord>, StorageUnavailable>
  /**
   * Rebuild: in one atomic step, drop every document of `collections` (all workspaces), then write
   * these. Collections not named (idempotency records, say) are left as they are.
   */
  readonly replaceDocuments: (
    collections: ReadonlyArray<Collection>,
    documents: ReadonlyArray<DocumentWrite>
  ) => Effect.Effect<void, StorageUnavailable>
  /**
   * How many events the log holds (the total a rebuild's progress counts to). Not the highest
   * sequence: on a storage spread over servers each hands out sequences from its own range.
   */
  readonly eventCount: Effect.Effect<number, StorageUnavailable>
  /**
   * The feed position of the last event in one workspace's log (feed order), null when it has none:
   * where a request's walk of it (readWorkspaceLog) stops. On a storage spread over servers by
   * workspace it asks one server.
   */
  readonly workspaceHead: (workspaceId: string) => Effect.Effect<ChangeFeedPosition | null, StorageUnavailable>
  /**
   * Runs `read` so that every read it makes of the storage sees one state (PostgreSQL: one
   * REPEATABLE READ transaction; memory: commits wait until it is done), and gives it the change
   * feed position of that state in the workspace: the workspace's events in the state are exactly
   * those at or before it (null: none yet). So a reader that takes the state, then follows the feed
   * after that position, sees every later change once and none the state already held. Reads only.
   */
  /**
   * Which target of an inline projection (InlineProjectionOf) this storage runs inside its commits,
   * or null when it runs none: PostgreSQL on Citus, where the embedder's tables would need a
   * distributed transaction. The engine refuses, when built, projections it cannot run.
   */
  readonly inlineTarget: "postgres" | "memory" | null
  readonly snapshot: <A, E, R>(
    workspaceId: string,
    read: (through: ChangeFeedPosition | null) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StorageUnavailable, R>
  /**
   * The storage's position now: at or after every commit stored so far (see positions.ts). What a
   * write that stored nothing (an idempotent replay, a change to nothing) answers as its position.
   */
  readonly position: Effect.Effect<StoragePosition, StorageUnavailable>
  /** Reachability, for `/readyz`: and which server takes the writes now, and the read replicas. */
  readonly ping: Effect.Effect<StorageReadiness, StorageUnavailable>
}

/** What a storage that answers a ping reports of itself. */
export interface StorageReadiness {
  /**
   * The database server that answered, as it names itself (`127.0.0.1:5433`): the primary, when
   * the storage follows one among several (storage-pg's primary.ts). Null for memory storage.
   */
  readonly primary: string | null
  /** The read replicas, in the order configured (none on memory storage, or without replicas). */
  readonly replicas: ReadonlyArray<ReplicaReadiness>
}

/** A read replica as the host last saw it. */
export interface ReplicaReadiness {
  /** As it was configured (`127.0.0.1:5433`). */
  readonly server: string
  /** Whether reads may go to it now: it answers, and lags no more than the bound. */
  readonly fit: boolean
  /** How far behind the primary it is, in milliseconds; null while it cannot be asked. */
  readonly lagMillis: number | null
  /** The position it has replayed up to; null while it cannot be asked. */
  readonly replayed: StoragePosition | null
  /** Reads it served since the host started. */
  readonly served: number
  /** Why it is not fit, in a few words; null when it is. */
  readonly reason: string | null
}

export class Storage extends Context.Service<Storage, StorageService>()("@dealstream/core/Storage") {}
