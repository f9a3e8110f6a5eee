import {
  type Collection,
  type Commit,
  type CommitResult,
  type DocumentWrite,
  type ExpiredRecord,
  runQuery,
  Storage,
  type StorageService,
  type StoredDocument,
  type StoredEvent,
  UniqueViolation,
  VersionConflict
} from "@dealstream/core"
import { Clock, Effect, Layer } from "effect"

interface Row extends StoredDocument {
  readonly uniqueKey: string | null
}

const uniqueSlot = (collection: Collection, workspaceId: string, key: string) =>
  `${collection}\u0000${workspaceId}\u0000${key}`

const documentSlot = (collection: Collection, workspaceId: string, id: string) =>
  `${collection}\u0000${workspaceId}\u0000${id}`

/**
 * The storage port in process memory. Every operation runs synchronously inside one `Effect.sync`,
 * so a commit is atomic with respect to every other operation of this process: it checks every
 * stream version and unique key first and writes only when all of them hold.
 */
export const make: Effect.Effect<StorageService> = Effect.sync(() => {
  const log: Array<StoredEvent> = []
  const streams = new Map<string, Array<StoredEvent>>()
  const documents = new Map<string, Row>()
  const byWorkspace = new Map<string, Map<string, Row>>()
  const uniques = new Map<string, string>()

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
    documents.set(documentSlot(row.collection, row.workspaceId, row.id), row)
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
        return Effect.succeed({ events: appended })
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
    readStream: (streamId) => Effect.sync(() => [...(streams.get(streamId) ?? [])]),
    readLog: ({ after, limit }) => Effect.sync(() => log.slice(Math.max(0, after), Math.max(0, after) + limit)),
    getDocument: (collection, workspaceId, id) =>
      Effect.sync(() => {
        const row = documents.get(documentSlot(collection, workspaceId, id))
        return row === undefined ? null : toDocument(row)
      }),
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
  return service
})

export const layer: Layer.Layer<Storage> = Layer.effect(Storage, make)
