import {
  type Collection,
  type Commit,
  type CommitResult,
  DeliveryQueue,
  type DeliveryQueueService,
  type DocumentWrite,
  type ExpiredRecord,
  type QueueSignal,
  runQuery,
  type SettingsChange,
  Storage,
  type StorageService,
  type StoredDocument,
  type StoredEvent,
  UniqueViolation,
  VersionConflict
} from "@dealstream/core"
import { Clock, Context, Effect, Layer, PubSub, Stream } from "effect"

interface Row extends StoredDocument {
  readonly uniqueKey: string | null
}

const uniqueSlot = (collection: Collection, workspaceId: string, key: string) =>
  `${collection}\u0000${workspaceId}\u0000${key}`

const documentSlot = (collection: Collection, workspaceId: string, id: string) =>
  `${collection}\u0000${workspaceId}\u0000${id}`

interface Lease {
  readonly owner: string
  readonly until: string
}

export interface Services {
  readonly storage: StorageService
  readonly queue: DeliveryQueueService
}

/**
 * The storage port in process memory, and the delivery queue over its delivery documents. Every
 * operation runs synchronously inside one `Effect.sync`, so a commit or a claim is atomic with
 * respect to every other operation of this process: a commit checks every stream version and
 * unique key first and writes only when all of them hold.
 */
export const makeWithQueue: Effect.Effect<Services> = Effect.gen(function*() {
  const signals = yield* PubSub.unbounded<QueueSignal>()
  const settingsChanges = yield* PubSub.unbounded<SettingsChange>()
  /** Per workspace: moves on with every commit that appends to one of its settings streams. */
  const settingsVersions = new Map<string, number>()
  const log: Array<StoredEvent> = []
  const streams = new Map<string, Array<StoredEvent>>()
  const documents = new Map<string, Row>()
  const byWorkspace = new Map<string, Map<string, Row>>()
  const uniques = new Map<string, string>()
  /** Pending deliveries by document slot: the queue, without scanning every document. */
  const pending = new Map<string, Row>()
  const leases = new Map<string, Lease>()

  const workspaceRows = (collection: Collection, workspaceId: string) => {
    const slot = `${collection}\u0000${workspaceId}`
    let rows = byWorkspace.get(slot)
    if (rows === undefined) {
      rows = new Map()
      byWorkspace.set(slot, rows)
    }
    return rows
  }

  const removeRow = (collection: Collection, workspaceId: string, id: string) => {
    const slot = documentSlot(collection, workspaceId, id)
    const existing = documents.get(slot)
    if (existing === undefined) return
    if (existing.uniqueKey !== null) uniques.delete(uniqueSlot(collection, workspaceId, existing.uniqueKey))
    // Every write of a document comes through here first: a delivery written again loses its lease.
    pending.delete(slot)
    leases.delete(slot)
    documents.delete(slot)
    workspaceRows(collection, workspaceId).delete(id)
  }

  const writeRow = (write: DocumentWrite) => {
    removeRow(write.collection, write.workspaceId, write.id)
    if (write._tag === "Remove") return
    const row: Row = {
      collection: write.collection,
      workspaceId: write.workspaceId,
      id: write.id,
      version: write.version,
      deletedAt: write.deletedAt,
      data: write.data,
      uniqueKey: write.uniqueKey
    }
    const slot = documentSlot(row.collection, row.workspaceId, row.id)
    documents.set(slot, row)
    if (row.collection === "delivery" && row.data["status"] === "pending") pending.set(slot, row)
    workspaceRows(row.collection, row.workspaceId).set(row.id, row)
    if (row.uniqueKey !== null) uniques.set(uniqueSlot(row.collection, row.workspaceId, row.uniqueKey), row.id)
  }

  /** The first unique key this commit would take from another document, if any. */
  const findUniqueViolation = (writes: ReadonlyArray<DocumentWrite>): UniqueViolation | null => {
    const released = new Set<string>()
    for (const write of writes) {
      const existing = documents.get(documentSlot(write.collection, write.workspaceId, write.id))
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

  const commit = (commit: Commit) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.suspend((): Effect.Effect<CommitResult, VersionConflict | UniqueViolation> => {
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

        for (const streamId of commit.redactStreams ?? []) {
          const events = streams.get(streamId) ?? []
          events.forEach((event, index) => {
            const redacted: StoredEvent = { ...event, data: { redacted: true } }
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
            log.push(stored)
            events.push(stored)
            appended.push(stored)
          }
        }
        for (const write of commit.documents) writeRow(write)
        const changed = new Set(
          commit.streams.filter((append) => append.settings === true && append.events.length > 0)
            .map((append) => append.events[0]!.metadata.workspaceId)
        )
        for (const workspaceId of changed) settingsVersions.set(workspaceId, (settingsVersions.get(workspaceId) ?? 0) + 1)
        return Effect.as(
          Effect.forEach(changed, (workspaceId) => PubSub.publish(settingsChanges, { _tag: "Changed", workspaceId }), { discard: true }),
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

  const service: StorageService = {
    commit,
    readStream: (streamId, after = 0) => Effect.sync(() => (streams.get(streamId) ?? []).slice(Math.max(0, after))),
    settingsVersion: (workspaceId) => Effect.sync(() => settingsVersions.get(workspaceId) ?? 0),
    settingsChanges: Stream.fromPubSub(settingsChanges),
    readLog: ({ after, limit }) => Effect.sync(() => log.slice(Math.max(0, after), Math.max(0, after) + limit)),
    getDocument: (collection, workspaceId, id) =>
      Effect.sync(() => {
        const row = documents.get(documentSlot(collection, workspaceId, id))
        return row === undefined ? null : toDocument(row)
      }),
    getDocuments: (collection, workspaceId, ids) =>
      Effect.sync(() =>
        [...new Set(ids)].flatMap((id) => {
          const row = documents.get(documentSlot(collection, workspaceId, id))
          return row === undefined ? [] : [toDocument(row)]
        })
      ),
    queryDocuments: (collection, workspaceId, query) =>
      Effect.sync(() => runQuery(workspaceRows(collection, workspaceId).values(), query).map(toDocument)),
    listDeletedBefore: (collection, cutoff, limit) =>
      Effect.sync(() => {
        const expired: Array<ExpiredRecord> = []
        for (const row of documents.values()) {
          if (expired.length >= limit) break
          if (row.collection === collection && row.deletedAt !== null && row.deletedAt <= cutoff) {
            expired.push({ workspaceId: row.workspaceId, id: row.id })
          }
        }
        return expired
      }),
    replaceDocuments: (collections, writes) =>
      Effect.sync(() => {
        const dropped = new Set<Collection>(collections)
        for (const row of [...documents.values()]) {
          if (dropped.has(row.collection)) removeRow(row.collection, row.workspaceId, row.id)
        }
        for (const write of writes) writeRow(write)
      }),
    headSequence: Effect.sync(() => log.length),
    ping: Effect.void
  }

  const nextAttemptOf = (row: Row) => {
    const at = row.data["next_attempt_at"]
    return typeof at === "string" ? at : null
  }
  const byDue = (a: Row, b: Row) => {
    const [x, y] = [nextAttemptOf(a) ?? "", nextAttemptOf(b) ?? ""]
    return x < y ? -1 : x > y ? 1 : 0
  }

  const queue: DeliveryQueueService = {
    claim: ({ leaseUntil, limit, now, owner }) =>
      Effect.sync(() => {
        const due: Array<readonly [string, Row]> = []
        for (const [slot, row] of pending) {
          const at = nextAttemptOf(row)
          const lease = leases.get(slot)
          if (at !== null && at <= now && (lease === undefined || lease.until < now)) due.push([slot, row])
        }
        const claimed = due.sort(([, a], [, b]) => byDue(a, b)).slice(0, Math.max(0, Math.floor(limit)))
        for (const [slot] of claimed) leases.set(slot, { owner, until: leaseUntil })
        return claimed.map(([, row]) => toDocument(row))
      }),
    release: (owner) =>
      Effect.sync(() => {
        for (const [slot, lease] of leases) if (lease.owner === owner) leases.delete(slot)
      }),
    // When the next pending delivery becomes claimable: its due time, or its lease's end if later.
    nextDue: Effect.sync(() => {
      let earliest: string | null = null
      for (const [slot, row] of pending) {
        const due = nextAttemptOf(row)
        if (due === null) continue
        const leasedUntil = leases.get(slot)?.until
        const at = leasedUntil !== undefined && leasedUntil > due ? leasedUntil : due
        if (earliest === null || at < earliest) earliest = at
      }
      return earliest
    }),
    signal: (signal) => Effect.asVoid(PubSub.publish(signals, signal)),
    signals: Stream.fromPubSub(signals)
  }
  return { storage: service, queue }
})

/** The storage alone. */
export const make: Effect.Effect<StorageService> = Effect.map(makeWithQueue, (services) => services.storage)

/** Storage and DeliveryQueue over one memory. */
export const layer: Layer.Layer<Storage | DeliveryQueue> = Layer.effectContext(
  Effect.map(makeWithQueue, ({ queue, storage }) => Context.make(Storage, storage).pipe(Context.add(DeliveryQueue, queue)))
)
