import {
  duplicateGroupsOf,
  ConsumerCheckpoints,
  type ConsumerCheckpointsService,
  type Collection,
  type Commit,
  type CommitResult,
  runInlineTargets,
  DeliveryQueue,
  type DeliveryQueueService,
  type DocumentWrite,
  type ChangeFeedEvent,
  type ChangeFeedPosition,
  feedThrough,
  figureDocuments,
  figureRows,
  isFiguresQuery,
  changeFeedTypeMatches,
  type LinkedDocuments,
  type QueueSignal,
  type FeedChange,
  recordTypeSet,
  type RecordTypePlugin,
  RecordTypes,
  type SettingsChange,
  Storage,
  type StorageService,
  type StoredDocument,
  type StoredEvent,
  UniqueViolation,
  VersionConflict,
  noteWritten,
  type ProjectionFailed,
  WrittenAt
} from "@dealstream/core"
import { Clock, Context, Deferred, Effect, Layer, PubSub, Result, Stream } from "effect"
import { DocumentTable } from "./documentTable.js"
import { PendingDeliveries, sequenceOf } from "./pendingDeliveries.js"
import { Trash } from "./trash.js"
import { makeConsumerCheckpoints } from "./consumerCheckpoints.js"

interface Row extends StoredDocument {
  readonly uniqueKey: string | null
}

const uniqueSlot = (collection: Collection, workspaceId: string, key: string) => `${collection}\u0000${workspaceId}\u0000${key}`

const documentSlot = (collection: Collection, workspaceId: string, id: string) => `${collection}\u0000${workspaceId}\u0000${id}`

const tableSlot = (collection: Collection, workspaceId: string) => `${collection}\u0000${workspaceId}`

/**
 * The change feed position of the event at `sequence`: the log is one array in commit order, so a
 * sequence alone orders the feed; the transaction key PostgreSQL's positions lead with is constant.
 */
const positionOf = (sequence: number): ChangeFeedPosition => ({ transaction: "0", sequence })

export interface Services {
  readonly storage: StorageService
  readonly queue: DeliveryQueueService
  readonly checkpoints: ConsumerCheckpointsService
  /**
   * Everything this memory holds, as plain data: the log, every stream, every table's rows (with
   * their unique keys) and the values its sort indexes keep, the unique keys, the trash, the
   * pending deliveries and their leases, the settings versions. For tests that search the whole
   * state (a person's erasure must leave nothing of them anywhere): `JSON.stringify` it.
   */
  readonly contents: Effect.Effect<unknown>
}

/** Whether a commit of an event of `type` is told to the feed's listeners: a built-in record type's or a plug-in's. */
const feedNotifiedOf = (plugins: ReadonlyArray<RecordTypePlugin>) => {
  const { feedPrefixes } = recordTypeSet(plugins)
  return (type: string): boolean => feedPrefixes.some((prefix) => type.startsWith(prefix))
}

/**
 * The storage port in process memory, and the delivery queue over its delivery documents. Every
 * operation runs synchronously inside one `Effect.sync`, so a commit or a claim is atomic with
 * respect to every other operation of this process: a commit checks every stream version and
 * unique key first and writes only when all of them hold.
 *
 * Nothing a call does grows with the data beyond what it answers: documents live in one table per
 * collection and workspace, whose sort indexes answer list pages (documentTable.ts); the trash is
 * kept in deletion order for the purge (trash.ts) and pending deliveries in due order for the
 * queue (pendingDeliveries.ts). Only a rebuild (replaceDocuments) reads everything.
 *
 * Collections are keys like any other, so a record type plug-in's (core's RecordTypes) needs
 * nothing of its own but its events in the change feed's notifications.
 */
export const makeWithQueue: Effect.Effect<Services> = Effect.gen(function* () {
  const isFed = feedNotifiedOf(yield* RecordTypes)
  const signals = yield* PubSub.unbounded<QueueSignal>()
  const settingsChanges = yield* PubSub.unbounded<SettingsChange>()
  const feedChanges = yield* PubSub.unbounded<FeedChange>()
  /** Per workspace: moves on with every commit that appends to one of its settings streams. */
  const settingsVersions = new Map<string, number>()
  const log: Array<StoredEvent> = []
  /** Each event's index in the log by its public id (GET /v1/events/:id). */
  const eventIndex = new Map<string, number>()
  /** The workspaces whose log holds an event: a consumer over every workspace's partitions. */
  const workspaces = new Set<string>()
  const streams = new Map<string, Array<StoredEvent>>()
  const tables = new Map<string, DocumentTable<Row>>()
  const uniques = new Map<string, string>()
  const trash = new Trash()
  const deliveries = new PendingDeliveries<Row>()

  const findRow = (collection: Collection, workspaceId: string, id: string): Row | undefined =>
    tables.get(tableSlot(collection, workspaceId))?.rows.get(id)

  const writeRow = (write: DocumentWrite) => {
    const { collection, id, workspaceId } = write
    const slot = tableSlot(collection, workspaceId)
    let table = tables.get(slot)
    if (table === undefined) {
      if (write._tag === "Remove") return
      table = new DocumentTable()
      tables.set(slot, table)
    }
    const previous = table.rows.get(id)
    if (previous?.uniqueKey != null) uniques.delete(uniqueSlot(collection, workspaceId, previous.uniqueKey))
    const row: Row | undefined =
      write._tag === "Remove"
        ? undefined
        : {
            collection,
            workspaceId,
            id,
            version: write.version,
            deletedAt: write.deletedAt,
            data: write.data,
            uniqueKey: write.uniqueKey
          }
    if (previous === undefined && row === undefined) return
    table.put(id, row)
    if (row?.uniqueKey != null) uniques.set(uniqueSlot(collection, workspaceId, row.uniqueKey), id)
    trash.update(collection, previous, row)
    // Every write of a delivery, the same data again included, ends its lease.
    if (collection === "delivery") deliveries.update(documentSlot(collection, workspaceId, id), previous, row)
  }

  /** The first unique key this commit would take from another document, if any. */
  const findUniqueViolation = (writes: ReadonlyArray<DocumentWrite>): UniqueViolation | null => {
    const released = new Set<string>()
    for (const write of writes) {
      const existing = findRow(write.collection, write.workspaceId, write.id)
      if (existing?.uniqueKey != null) released.add(uniqueSlot(write.collection, write.workspaceId, existing.uniqueKey))
    }
    const claimed = new Map<string, string>()
    for (const write of writes) {
      if (write._tag !== "Upsert" || write.uniqueKey === null) continue
      const slot = uniqueSlot(write.collection, write.workspaceId, write.uniqueKey)
      const holder = claimed.get(slot) ?? (released.has(slot) ? undefined : uniques.get(slot))
      if (holder !== undefined && holder !== write.id) {
        return new UniqueViolation({ collection: write.collection, uniqueKey: write.uniqueKey, existingId: holder })
      }
      claimed.set(slot, write.id)
    }
    return null
  }

  /** Commits stored so far: the memory storage's position (a commit without events moves it too). */
  let commits = 0

  // Snapshots in progress (storage.snapshot): commits wait until none is, so each sees one state.
  let snapshots = 0
  let thawed = Deferred.makeUnsafe<void>()
  const unfrozen: Effect.Effect<void> = Effect.suspend(() =>
    snapshots === 0 ? Effect.void : Effect.andThen(Deferred.await(thawed), unfrozen)
  )

  const snapshot = <A, E, R>(_workspaceId: string, read: (through: ChangeFeedPosition | null) => Effect.Effect<A, E, R>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        if (snapshots++ === 0) thawed = Deferred.makeUnsafe<void>()
        // Every event of the workspace so far is at or before the log's end, every later one after it.
        return log.length === 0 ? null : positionOf(log.length)
      }),
      read,
      () =>
        Effect.suspend(() => {
          if (--snapshots > 0) return Effect.void
          return Effect.asVoid(Deferred.succeed(thawed, undefined))
        })
    )

  const commit = (commit: Commit) => Effect.andThen(unfrozen, commitNow(commit))

  const commitNow = (commit: Commit) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.suspend((): Effect.Effect<CommitResult, VersionConflict | UniqueViolation | ProjectionFailed> => {
        for (const append of commit.streams) {
          const actual = streams.get(append.streamId)?.length ?? 0
          if (actual !== append.expectedVersion) {
            return Effect.fail(
              new VersionConflict({
                streamId: append.streamId,
                expectedVersion: append.expectedVersion,
                actualVersion: actual
              })
            )
          }
        }
        for (const read of commit.settingsRead ?? []) {
          const actual = settingsVersions.get(read.workspaceId) ?? 0
          if (actual !== read.version) {
            return Effect.fail(
              new VersionConflict({ streamId: `settings:${read.workspaceId}`, expectedVersion: read.version, actualVersion: actual })
            )
          }
        }
        const violation = findUniqueViolation(commit.documents)
        if (violation !== null) return Effect.fail(violation)
        // The projections' next states, made before anything is written: one that fails stores nothing.
        const installs = runInlineTargets(commit.inline ?? [], "memory", (write) => write.memory)
        if (Result.isFailure(installs)) return Effect.fail(installs.failure)

        for (const streamId of commit.redactStreams ?? []) {
          const events = streams.get(streamId) ?? []
          events.forEach((event, index) => {
            // The announced payload shows the record too: it goes with the data (as PostgreSQL's trigger does).
            const { payload: _payload, ...metadata } = event.metadata
            const redacted: StoredEvent = { ...event, data: { redacted: true }, metadata }
            events[index] = redacted
            log[event.sequence - 1] = redacted
          })
        }
        const recordedAt = new Date(now).toISOString()
        const appended: Array<StoredEvent> = []
        for (const append of commit.streams) {
          let events = streams.get(append.streamId)
          if (events === undefined) {
            events = []
            streams.set(append.streamId, events)
          }
          for (const event of append.events) {
            const stored: StoredEvent = {
              ...event,
              sequence: log.length + 1,
              streamId: append.streamId,
              streamVersion: events.length + 1,
              recordedAt
            }
            eventIndex.set(stored.metadata.eventId, log.length)
            log.push(stored)
            workspaces.add(stored.metadata.workspaceId)
            events.push(stored)
            appended.push(stored)
          }
        }
        for (const write of commit.documents) writeRow(write)
        for (const install of installs.success) install()
        const changed = new Set(
          commit.streams
            .filter((append) => append.settings === true && append.events.length > 0)
            .map((append) => append.events[0]!.metadata.workspaceId)
        )
        for (const workspaceId of changed) settingsVersions.set(workspaceId, (settingsVersions.get(workspaceId) ?? 0) + 1)
        const fed = new Set(appended.filter((event) => isFed(event.type)).map((event) => event.metadata.workspaceId))
        commits++
        const position = BigInt(commits)
        return Effect.as(
          Effect.andThen(
            Effect.forEach(changed, (workspaceId) => PubSub.publish(settingsChanges, { _tag: "Changed", workspaceId }), { discard: true }),
            Effect.forEach(fed, (workspaceId) => PubSub.publish(feedChanges, { _tag: "Appended", workspaceId }), { discard: true })
          ).pipe(Effect.andThen(WrittenAt.useSync((written) => noteWritten(written, position)))),
          { events: appended }
        )
      })
    )

  const toDocument = (row: StoredDocument): StoredDocument => ({
    collection: row.collection,
    workspaceId: row.workspaceId,
    id: row.id,
    version: row.version,
    deletedAt: row.deletedAt,
    data: row.data
  })

  /** For each of `ids`, the live documents of `linked` naming it, in id order (one scan of the linked table). */
  const linkedTo = (workspaceId: string, ids: ReadonlyArray<string>, linked: LinkedDocuments | null) => {
    const out = new Map<string, Array<string>>()
    if (linked === null || ids.length === 0) return out
    const wanted = new Set(ids)
    for (const other of tables.get(tableSlot(linked.collection, workspaceId))?.rows.values() ?? []) {
      const named = other.data[linked.field]
      if (other.deletedAt !== null || !Array.isArray(named)) continue
      for (const id of named) {
        if (typeof id !== "string" || !wanted.has(id)) continue
        const list = out.get(id) ?? []
        if (list.at(-1) !== other.id) list.push(other.id)
        out.set(id, list)
      }
    }
    for (const list of out.values()) list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    return out
  }

  const service: StorageService = {
    commit,
    readStream: (streamId, after = 0, workspaceId) =>
      Effect.sync(() =>
        (streams.get(streamId) ?? [])
          .slice(Math.max(0, after))
          .filter((event) => workspaceId === undefined || event.metadata.workspaceId === workspaceId)
      ),
    settingsVersion: (workspaceId) => Effect.sync(() => settingsVersions.get(workspaceId) ?? 0),
    settingsChanges: Stream.fromPubSub(settingsChanges),
    readLog: ({ after, limit }) => Effect.sync(() => log.slice(Math.max(0, after), Math.max(0, after) + limit)),
    // The log is one array in sequence order, which is commit order here (readFeed): a walk from
    // `after` to `until`, fine for a memory store, with the feed's positions.
    readWorkspaceLog: ({ after, limit, types, until, workspaceId }) =>
      Effect.sync(() => {
        const out: Array<ChangeFeedEvent> = []
        const end = Math.min(until?.sequence ?? log.length, log.length)
        for (let i = Math.max(0, after?.sequence ?? 0); i < end && out.length < limit; i++) {
          const event = log[i]!
          if (event.metadata.workspaceId === workspaceId && (types === undefined || types.includes(event.type))) {
            out.push({ ...event, position: positionOf(event.sequence) })
          }
        }
        return out
      }),
    getDocument: (collection, workspaceId, id) =>
      Effect.sync(() => {
        const row = findRow(collection, workspaceId, id)
        return row === undefined ? null : toDocument(row)
      }),
    readRecord: (collection, workspaceId, id, linked) =>
      Effect.sync(() => {
        const row = findRow(collection, workspaceId, id)
        return {
          document: row === undefined ? null : toDocument(row),
          linkedIds: linkedTo(workspaceId, [id], linked).get(id) ?? [],
          settingsVersion: settingsVersions.get(workspaceId) ?? 0
        }
      }),
    queryRecords: (collection, workspaceId, query, linked) =>
      Effect.sync(() => {
        const documents = (tables.get(tableSlot(collection, workspaceId))?.query(query) ?? []).map(toDocument)
        const links = linkedTo(
          workspaceId,
          documents.map((document) => document.id),
          linked
        )
        return {
          rows: documents.map((document) => ({ document, linkedIds: links.get(document.id) ?? [] })),
          settingsVersion: settingsVersions.get(workspaceId) ?? 0
        }
      }),
    getDocuments: (collection, workspaceId, ids) =>
      Effect.sync(() =>
        [...new Set(ids)].flatMap((id) => {
          const row = findRow(collection, workspaceId, id)
          return row === undefined ? [] : [toDocument(row)]
        })
      ),
    queryDocuments: (collection, workspaceId, query) =>
      Effect.sync(() => {
        const table = tables.get(tableSlot(collection, workspaceId))
        // A figures query reads every document of the collection in the workspace: the figures
        // are aggregates of them all (PostgreSQL reads them from covering indexes instead).
        return isFiguresQuery(query)
          ? figureDocuments(collection, workspaceId, figureRows(query, [...(table?.rows.values() ?? [])]))
          : (table?.query(query) ?? []).map(toDocument)
      }),
    // Commits apply one at a time here, so sequence order is commit order and nothing lands behind.
    readFeed: ({ after, limit, types, workspaceId }) =>
      Effect.sync(() => {
        const events: Array<ChangeFeedEvent> = []
        let tail: ChangeFeedPosition | null = null
        for (let i = after?.sequence ?? 0; i < log.length && events.length < limit; i++) {
          const event = log[i]!
          if (event.metadata.workspaceId !== workspaceId) continue
          tail = positionOf(event.sequence)
          if (changeFeedTypeMatches(types, event.type)) events.push({ ...event, position: tail })
        }
        return { events, through: feedThrough(events, limit, after, tail) }
      }),
    documentByUniqueKey: (collection, workspaceId, uniqueKey) =>
      Effect.sync(() => {
        const id = uniques.get(uniqueSlot(collection, workspaceId, uniqueKey))
        const row = id === undefined ? undefined : findRow(collection, workspaceId, id)
        return row === undefined ? null : toDocument(row)
      }),
    readEvent: (workspaceId, eventId) =>
      Effect.sync(() => {
        const event = log[eventIndex.get(eventId) ?? -1]
        return event !== undefined && event.metadata.workspaceId === workspaceId ? event : null
      }),
    feedChanges: Stream.fromPubSub(feedChanges),
    documentsWith: (collection, key, limit) =>
      Effect.sync(() => {
        const found: Array<StoredDocument> = []
        for (const [slot, table] of tables) {
          if (slot.slice(0, slot.indexOf("\u0000")) !== collection) continue
          for (const row of table.rows.values()) {
            const value = row.data[key]
            if (row.deletedAt === null && value !== undefined && value !== null) found.push(toDocument(row))
          }
        }
        return found
          .sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit)
      }),
    duplicates: (collection, workspaceId, after, limit) =>
      Effect.sync(() =>
        duplicateGroupsOf(
          collection,
          [...(tables.get(tableSlot(collection, workspaceId))?.rows.values() ?? [])].filter((row) => row.deletedAt === null),
          after,
          limit
        )
      ),
    listDeletedBefore: (collection, cutoff, limit) => Effect.sync(() => trash.deletedBefore(collection, cutoff, limit)),
    replaceDocuments: (collections, writes) =>
      Effect.sync(() => {
        const dropped = new Set<Collection>(collections)
        for (const [slot, table] of tables) {
          const collection = slot.slice(0, slot.indexOf("\u0000")) as Collection
          if (!dropped.has(collection)) continue
          for (const row of table.rows.values()) {
            if (row.uniqueKey !== null) uniques.delete(uniqueSlot(collection, row.workspaceId, row.uniqueKey))
          }
          tables.delete(slot)
        }
        for (const collection of dropped) trash.clear(collection)
        if (dropped.has("delivery")) deliveries.clear()
        for (const write of writes) writeRow(write)
      }),
    eventCount: Effect.sync(() => log.length),
    workspaceHead: (workspaceId) =>
      Effect.sync(() => {
        for (let i = log.length - 1; i >= 0; i--) {
          if (log[i]!.metadata.workspaceId === workspaceId) return positionOf(log[i]!.sequence)
        }
        return null
      }),
    snapshot,
    position: Effect.sync(() => BigInt(commits)),
    ping: Effect.succeed({ primary: null, replicas: [] }),
    inlineTarget: "memory"
  }

  /** A claimed delivery with its event's position, looked up in the log when scheduling did not know it. */
  const withSequence = (doc: StoredDocument): StoredDocument => {
    if (sequenceOf(doc.data) !== null) return doc
    const { event_stream_id: streamId, event_version: version } = doc.data
    const event = typeof streamId === "string" && typeof version === "number" ? streams.get(streamId)?.[version - 1] : undefined
    return event === undefined ? doc : { ...doc, data: { ...doc.data, sequence: event.sequence } }
  }

  const queue: DeliveryQueueService = {
    claim: (options) => Effect.sync(() => deliveries.claim(options).map((row) => withSequence(toDocument(row)))),
    release: (owner) => Effect.sync(() => deliveries.release(owner)),
    nextDue: Effect.sync(() => deliveries.nextDue()),
    signal: (signal) => Effect.asVoid(PubSub.publish(signals, signal)),
    signals: Stream.fromPubSub(signals)
  }
  const contents = Effect.sync(() => ({
    log,
    streams: Object.fromEntries(streams),
    eventIds: [...eventIndex.keys()],
    tables: [...tables].map(([slot, table]) => ({ slot, ...table.contents() })),
    uniques: [...uniques],
    trash: trash.contents(),
    pendingDeliveries: deliveries.contents(),
    settingsVersions: [...settingsVersions]
  }))
  return { storage: service, queue, checkpoints: makeConsumerCheckpoints(() => workspaces), contents }
})

/** The storage alone. */
export const make: Effect.Effect<StorageService> = Effect.map(makeWithQueue, (services) => services.storage)

/** Storage, DeliveryQueue and consumers' checkpoints over one memory. */
export const layer: Layer.Layer<Storage | DeliveryQueue | ConsumerCheckpoints> = Layer.effectContext(
  Effect.map(makeWithQueue, ({ checkpoints, queue, storage }) =>
    Context.make(Storage, storage).pipe(Context.add(DeliveryQueue, queue), Context.add(ConsumerCheckpoints, checkpoints))
  )
)
