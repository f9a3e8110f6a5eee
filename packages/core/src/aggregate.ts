import { Data, Result, Schema } from "effect"
import type { CustomFieldDefinition, CustomFieldObject } from "./field/custom.js"
import type { Decider, Projected } from "./decider.js"
import type { DomainError } from "./errors.js"
import { type SearchFields, searchFieldsOf, searchWordsOfDocument } from "./query/documentSearchWords.js"
import { catalogOf, type FieldCatalog } from "./query/fields.js"
import type { Collection, DocumentWrite } from "./storage/documents.js"
import { type DomainEvent, isRedacted, type StoredEvent } from "./storage/events.js"

/** The stream a command writes, as its documents need it. */
export interface StreamRef {
  readonly workspaceId: string
  readonly id: string
  /** The workspace's custom field definitions: they say which fields `search` reads, so a document's search words. */
  readonly definitions: ReadonlyArray<CustomFieldDefinition>
}

/** What a stream's documents are made from: the record before some events, and those events. */
export interface StreamChange<E> {
  /** The record's document as the earlier events left it (null before its first event). */
  readonly before: Projected | null
  readonly fresh: ReadonlyArray<E>
  /** The stream's version after `fresh`. */
  readonly version: number
  /**
   * Every event of the stream, `fresh` included: only where the aggregate's `documentsNeedHistory`
   * asks for it (a purge removing what every earlier event wrote), and always from rebuild.
   */
  readonly all?: ReadonlyArray<E>
}

/**
 * The documents a stream's events project to. The command path gives the record as it stood and
 * the events a command added; rebuild gives nothing before and the whole stream as fresh, so both
 * write exactly the same documents.
 */
export type StreamDocuments<E> = (stream: StreamRef, change: StreamChange<E>) => ReadonlyArray<DocumentWrite>

/**
 * One kind of record as the engine sees it: how its streams are named, the decider that guards them,
 * the Schema its stored events decode with, and the documents they project to. Every command goes
 * through the engine's one handler with a descriptor (engine/commands/handleCommand.ts), and
 * rebuild walks the registered ones (engine/contract/aggregates.ts): a new record type is a folder
 * with its descriptor and one line there.
 */
export interface Aggregate<C, E extends DomainEvent, S> {
  /** The resource word in errors (`contact con_… not found`) and the prefix of its event types (`contact.created`). */
  readonly name: string
  /** Its streams are named `<prefix>_…`: an id with another prefix names no record of this kind. */
  readonly prefix: string
  readonly decider: Decider<C, E, S>
  /** Its events as the log stores them. A stream is decoded with this when it is read. */
  readonly events: Schema.Decoder<E>
  /**
   * Where an older stored shape is read as a current one: called on every stored event before it is
   * decoded, it returns the event as it is written today (see aggregate.unit.spec.ts).
   */
  readonly upcast?: (stored: DomainEvent) => DomainEvent
  /**
   * The workspace a stream belongs to, told by its first event: that event's own by default. Only
   * a stream whose events moved workspace says otherwise (an API key's, see apiKey/aggregate.ts).
   */
  readonly workspaceOf?: (first: StoredEvent) => string
  /**
   * A workspace whose log may hold a stream's oldest events, beside the workspace's own: API keys
   * made before keys had workspaces began in the system workspace (apiKey/aggregate.ts). A stream
   * read finds its beginning there when its own log lacks it (engine/base/aggregateStream.ts).
   */
  readonly olderLog?: string
  /** The record's document as the API returns it; null for an aggregate that has none. */
  readonly project: ((doc: Projected | null, event: E) => Projected | null) | null
  readonly documents: StreamDocuments<E>
  /** Whether these new events' documents need the whole stream (see StreamChange.all); never, by default. */
  readonly documentsNeedHistory?: (fresh: ReadonlyArray<E>) => boolean
  /** Whether its documents carry search words, which the workspace's custom field definitions decide. */
  readonly searched?: boolean
  /**
   * A settings stream: its records (custom field definitions, pipelines, webhooks) are what hosts keep
   * per workspace in memory, and every commit to one moves the workspace's settings version on.
   */
  readonly settings?: boolean
  /**
   * Its events' data may be redacted without a new version (a purge of the record a delivery carried),
   * so no host may keep its state between commands: every command reads the stream.
   */
  readonly redactedInPlace?: boolean
  /** The collections `documents` writes, the record's own first. */
  readonly collections: ReadonlyArray<Collection>
  /**
   * Whether `dealstream rebuild` replaces these collections from the log. Webhooks, deliveries (a
   * work queue whose leases live beside the documents) and API keys are left as they are.
   */
  readonly rebuilt: boolean
  /**
   * Records of this kind go to the trash when deleted; past the recovery window this command purges
   * one (its documents removed, its events and its deliveries' redacted).
   */
  readonly purge?: (id: string, at: string) => C
  /** The answer when a command's document takes a unique key another record holds (a live contact's email). */
  readonly uniqueKeyTaken?: (existingId: string, command: C) => DomainError
}

/** Any aggregate, for lists of them: deciders are contravariant in their commands and events. */
export type AnyAggregate = Aggregate<any, any, any>

/** The workspace whose stream this is, by its first event (see Aggregate.workspaceOf). */
export const streamWorkspace = (aggregate: AnyAggregate, first: StoredEvent): string =>
  aggregate.workspaceOf?.(first) ?? first.metadata.workspaceId

/** Whether this stream id names a record of this aggregate. */
export const isStreamOf = (aggregate: AnyAggregate, streamId: string): boolean => streamId.startsWith(`${aggregate.prefix}_`)

/** The aggregate whose records this stream id names, if any: the one way a stream's kind is told. */
export const aggregateOf = <A extends AnyAggregate>(aggregates: ReadonlyArray<A>, streamId: string): A | undefined =>
  aggregates.find((aggregate) => isStreamOf(aggregate, streamId))

/**
 * A purge (or a person's erasure) leaves a tombstone and redacts the earlier events of the record's
 * stream and of its deliveries' streams: such a stream has nothing left to decode, and reads as gone.
 */
export const isErased = (stored: ReadonlyArray<StoredEvent>): boolean =>
  stored.some((event) => event.type.endsWith(".purged") || event.type.endsWith(".erased") || isRedacted(event.data))

/** A stored event its aggregate's Schema does not accept: a defect of the log or of the code, never a client's. */
export class UndecodableEvent extends Data.TaggedError("UndecodableEvent")<{
  readonly streamId: string
  readonly streamVersion: number
  readonly type: string
  readonly issue: string
}> {
  override get message(): string {
    return `event ${this.streamVersion} (${this.type}) of stream ${this.streamId} does not decode: ${this.issue}`
  }
}

/** A stream's stored events as its aggregate's: each upcast when it has an older shape, then decoded. */
export const decodeEvents = <C, E extends DomainEvent, S>(
  aggregate: Aggregate<C, E, S>,
  stored: ReadonlyArray<StoredEvent>
): Result.Result<ReadonlyArray<E>, UndecodableEvent> => {
  const decode = Schema.decodeUnknownResult(aggregate.events)
  const events: Array<E> = []
  for (const event of stored) {
    const current = aggregate.upcast?.({ type: event.type, data: event.data }) ?? { type: event.type, data: event.data }
    const decoded = decode(current)
    if (Result.isFailure(decoded)) {
      return Result.fail(
        new UndecodableEvent({
          streamId: event.streamId,
          streamVersion: event.streamVersion,
          type: event.type,
          issue: String(decoded.failure.issue)
        })
      )
    }
    events.push(decoded.success)
  }
  return Result.succeed(events)
}

/** The state `evolve` folds from these events. */
export const stateOf = <C, E extends DomainEvent, S>(aggregate: Aggregate<C, E, S>, history: ReadonlyArray<E>): S =>
  history.reduce(aggregate.decider.evolve, aggregate.decider.initialState)

export const foldProjection = <E>(
  project: (doc: Projected | null, event: E) => Projected | null,
  events: ReadonlyArray<E>,
  from: Projected | null = null
): Projected | null => events.reduce(project, from)

/** A projected record as a document write: an upsert, or a removal once the record is purged. */
export const documentWrite = (
  collection: Collection,
  workspaceId: string,
  id: string,
  version: number,
  projected: Projected | null,
  options: { readonly uniqueKey?: string | null; readonly search?: SearchFields } = {}
): DocumentWrite =>
  projected === null
    ? { _tag: "Remove", collection, workspaceId, id }
    : {
        _tag: "Upsert",
        collection,
        workspaceId,
        id,
        version,
        deletedAt: projected.deletedAt,
        uniqueKey: options.uniqueKey ?? null,
        searchWords: options.search === undefined ? [] : searchWordsOfDocument(projected.data, options.search),
        data: projected.data
      }

/**
 * The documents of a record kept as one document under its stream id: the projection of the whole
 * stream, with the search words of the fields `search` reads in records of `searched` (the workspace's
 * custom text fields among them), and the unique key it claims.
 */
export const recordDocument =
  <E>(
    collection: Collection,
    project: (doc: Projected | null, event: E) => Projected | null,
    options: {
      /** A built-in record type's object, whose catalog the definitions extend; or a plug-in's own catalog. */
      readonly searched?: CustomFieldObject | FieldCatalog
      readonly uniqueKey?: (projected: Projected) => string | null
    } = {}
  ): StreamDocuments<E> =>
  ({ definitions, id, workspaceId }, { before, fresh, version }) => {
    const projected = foldProjection(project, fresh, before)
    return [
      documentWrite(collection, workspaceId, id, version, projected, {
        uniqueKey: projected === null ? null : (options.uniqueKey?.(projected) ?? null),
        ...(options.searched === undefined
          ? {}
          : {
              search: searchFieldsOf(typeof options.searched === "string" ? catalogOf(options.searched, definitions) : options.searched)
            })
      })
    ]
  }
