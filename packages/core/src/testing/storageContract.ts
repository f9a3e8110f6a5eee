import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Result, Stream, type Layer } from "effect"
import { TestClock } from "effect/testing"
import type { DocumentQuery, Expr } from "../query/ast.js"
import { type ChangeFeedEvent, type ChangeFeedPosition, compareChangeFeedPositions } from "../storage/changeFeed.js"
import { WrittenAt } from "../storage/positions.js"
import { type Commit, Storage, type StorageService } from "../storage/Storage.js"
import { settingsContractCases } from "./settingsContract.js"
import { event, fresh, upsert } from "./storageFixtures.js"

const all: Expr = { _tag: "True" }
const byName = (after: DocumentQuery["after"] = null, limit = 100): DocumentQuery => ({
  where: all,
  scope: "live",
  sort: { field: { name: "name", type: "text" }, direction: "asc" },
  after,
  limit
})

export interface StorageContractOptions {
  /**
   * The adapter stores a commit's events in one workspace's log only (PostgreSQL on Citus, where a
   * workspace's log lives on one worker): the cases that put two workspaces' events side by side
   * commit them one workspace after the other instead. Default false.
   */
  readonly oneLogPerCommit?: boolean
}

/**
 * The behaviour every storage adapter must show. Each adapter's test file calls this with a layer
 * that provides an empty (or at least isolated) storage.
 */
export const storageContractSuite = (name: string, layer: Layer.Layer<Storage, unknown>, options: StorageContractOptions = {}) => {
  /** The commit as given, or, for an adapter of one log per commit, one commit per workspace in turn. */
  const commitLogs = (storage: StorageService, commit: Commit) => {
    if (options.oneLogPerCommit !== true) return storage.commit(commit)
    const logs = [...new Set(commit.streams.map((stream) => stream.events[0]?.metadata.workspaceId ?? ""))]
    return Effect.map(
      Effect.forEach(logs, (log, i) =>
        storage.commit({
          streams: commit.streams.filter((stream) => (stream.events[0]?.metadata.workspaceId ?? "") === log),
          documents: i === 0 ? commit.documents : []
        })
      ),
      (results) => ({ events: results.flatMap((result) => result.events) })
    )
  }
  describe(`storage contract: ${name}`, () => {
    it.layer(layer, { timeout: 60_000 })((it) => {
      it.effect("appends events with increasing sequence, stream versions from 1 and a recorded time", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const a = fresh("con")
          const b = fresh("con")
          const first = yield* storage.commit({
            streams: [{ streamId: a, expectedVersion: 0, events: [event(ws, "x.one"), event(ws, "x.two")] }],
            documents: []
          })
          const second = yield* storage.commit({
            streams: [{ streamId: b, expectedVersion: 0, events: [event(ws, "x.three")] }],
            documents: []
          })
          expect(first.events.map((e) => e.streamVersion)).toEqual([1, 2])
          expect(first.events[1]!.sequence).toBeGreaterThan(first.events[0]!.sequence)
          expect(second.events[0]!.sequence).toBeGreaterThan(first.events[1]!.sequence)
          expect(second.events[0]!.streamVersion).toBe(1)
          expect(new Date(first.events[0]!.recordedAt).toISOString()).toBe(first.events[0]!.recordedAt)
          const stream = yield* storage.readStream(a)
          expect(stream.map((e) => e.type)).toEqual(["x.one", "x.two"])
          expect(stream[0]!.metadata.workspaceId).toBe(ws)
          expect(yield* storage.readStream(fresh("none"))).toEqual([])
        })
      )

      it.effect("notes each stored commit's position in the caller's WrittenAt: growing, and reached by the storage's position", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const before = yield* storage.position
          const written: WrittenAt = { position: null }
          const commitOne = () =>
            storage
              .commit({ streams: [{ streamId: fresh("con"), expectedVersion: 0, events: [event(ws, "x.one")] }], documents: [] })
              .pipe(Effect.provideService(WrittenAt, written))
          yield* commitOne()
          const first = written.position
          expect(first).not.toBeNull()
          expect(first!).toBeGreaterThan(before)
          yield* commitOne()
          expect(written.position!).toBeGreaterThan(first!)
          expect(yield* storage.position).toBeGreaterThanOrEqual(written.position!)
          // A refused commit stores nothing and notes nothing.
          const refused: WrittenAt = { position: null }
          const stale = yield* storage
            .commit({ streams: [{ streamId: fresh("con"), expectedVersion: 3, events: [event(ws, "x.one")] }], documents: [] })
            .pipe(Effect.provideService(WrittenAt, refused), Effect.flip)
          expect(stale._tag).toBe("VersionConflict")
          expect(refused.position).toBeNull()
        })
      )

      it.effect("a snapshot's reads see one state, and the feed after its position holds exactly the later events", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const id = fresh("con")
          const write = (n: number) =>
            storage.commit({
              streams: [{ streamId: id, expectedVersion: n - 1, events: [event(ws, "contact.updated", { n }, n)] }],
              documents: [upsert(ws, id, { n }, { version: n })]
            })
          yield* write(1)
          const { later, seen } = yield* storage.snapshot(ws, (through) =>
            Effect.gen(function* () {
              // A commit made while the snapshot is read: on PostgreSQL it lands at once, on memory
              // storage once the snapshot is done; the snapshot's reads see neither way.
              const later = yield* Effect.forkChild(write(2))
              yield* Effect.yieldNow
              const document = yield* storage.getDocument("contact", ws, id)
              const stream = yield* storage.readStream(id)
              return { later, seen: { through, n: document?.data["n"], events: stream.length } }
            })
          )
          expect(seen.n).toBe(1)
          expect(seen.events).toBe(1)
          expect(seen.through).not.toBeNull()
          yield* Fiber.join(later)
          const after = yield* storage.readFeed({ workspaceId: ws, after: seen.through, types: [], limit: 10 })
          expect(after.events.map((e) => e.data["n"])).toEqual([2])
          const before = yield* storage.readFeed({ workspaceId: ws, after: null, types: [], limit: 10 })
          expect(before.events.filter((e) => compareChangeFeedPositions(e.position, seen.through!) <= 0).map((e) => e.data["n"])).toEqual([
            1
          ])
        })
      )

      it.effect("reads a stream within the log of the workspace named: all of it there, none from another's", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const [ws, other] = [fresh("ws"), fresh("ws")]
          const s = fresh("con")
          yield* storage.commit({
            streams: [{ streamId: s, expectedVersion: 0, events: [1, 2, 3].map((n) => event(ws, "x.n", { n }, n)) }],
            documents: []
          })
          const ns = (events: ReadonlyArray<{ readonly data: Record<string, unknown> }>) => events.map((e) => e.data["n"])
          expect(ns(yield* storage.readStream(s, 0, ws))).toEqual([1, 2, 3])
          expect(ns(yield* storage.readStream(s, 1, ws))).toEqual([2, 3])
          expect(yield* storage.readStream(s, 0, other)).toEqual([])
          expect(yield* storage.readStream(s, 0, ws)).toEqual(yield* storage.readStream(s))
        })
      )

      it.effect("reads a stream after a version: only the later events, in order", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const s = fresh("con")
          yield* storage.commit({
            streams: [{ streamId: s, expectedVersion: 0, events: [1, 2].map((n) => event(ws, "x.n", { n }, n)) }],
            documents: []
          })
          yield* storage.commit({ streams: [{ streamId: s, expectedVersion: 2, events: [event(ws, "x.n", { n: 3 }, 3)] }], documents: [] })
          const after = (version: number) =>
            Effect.map(storage.readStream(s, version), (events) => events.map((e) => [e.streamVersion, e.data["n"]]))
          expect(yield* after(0)).toEqual([
            [1, 1],
            [2, 2],
            [3, 3]
          ])
          expect(yield* after(1)).toEqual([
            [2, 2],
            [3, 3]
          ])
          expect(yield* after(2)).toEqual([[3, 3]])
          expect(yield* after(3)).toEqual([])
          expect(yield* after(7)).toEqual([])
          expect(yield* storage.readStream(fresh("none"), 1)).toEqual([])
          // the events read after a version are the very events the whole stream holds
          expect(yield* storage.readStream(s, 1)).toEqual((yield* storage.readStream(s)).slice(1))
        })
      )

      it.effect("refuses a stale expected version and stores nothing of that commit", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const a = fresh("con")
          const b = fresh("con")
          yield* storage.commit({ streams: [{ streamId: a, expectedVersion: 0, events: [event(ws, "x.one")] }], documents: [] })
          const result = yield* Effect.result(
            storage.commit({
              streams: [
                { streamId: b, expectedVersion: 0, events: [event(ws, "x.b")] },
                { streamId: a, expectedVersion: 0, events: [event(ws, "x.again")] }
              ],
              documents: [upsert(ws, b, { name: "b" })]
            })
          )
          expect(Result.isFailure(result) && result.failure._tag).toBe("VersionConflict")
          if (Result.isFailure(result) && result.failure._tag === "VersionConflict") {
            expect(result.failure.streamId).toBe(a)
            expect(result.failure.actualVersion).toBe(1)
          }
          expect(yield* storage.readStream(b)).toEqual([])
          expect((yield* storage.readStream(a)).length).toBe(1)
          expect(yield* storage.getDocument("contact", ws, b)).toBeNull()
        })
      )

      it.effect("lets exactly one of two concurrent commits at the same version win", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const a = fresh("deal")
          yield* storage.commit({ streams: [{ streamId: a, expectedVersion: 0, events: [event(ws, "x.one")] }], documents: [] })
          const attempt = (n: number) =>
            Effect.result(
              storage.commit({
                streams: [{ streamId: a, expectedVersion: 1, events: [event(ws, "x.next", { n }, n)] }],
                documents: []
              })
            )
          const results = yield* Effect.all([attempt(1), attempt(2), attempt(3), attempt(4)], { concurrency: "unbounded" })
          expect(results.filter(Result.isSuccess).length).toBe(1)
          expect((yield* storage.readStream(a)).length).toBe(2)
        })
      )

      it.effect("upserts, reads and removes documents, keeping version and deletedAt", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const id = fresh("con")
          yield* storage.commit({ streams: [], documents: [upsert(ws, id, { name: "Ada" })] })
          yield* storage.commit({
            streams: [],
            documents: [upsert(ws, id, { name: "Ada L" }, { version: 3, deletedAt: "2026-01-01T00:00:00.000Z" })]
          })
          const doc = yield* storage.getDocument("contact", ws, id)
          expect(doc).toEqual({
            collection: "contact",
            workspaceId: ws,
            id,
            version: 3,
            deletedAt: "2026-01-01T00:00:00.000Z",
            data: { id, name: "Ada L" }
          })
          yield* storage.commit({ streams: [], documents: [{ _tag: "Remove", collection: "contact", workspaceId: ws, id }] })
          expect(yield* storage.getDocument("contact", ws, id)).toBeNull()
        })
      )

      it.effect("reads several documents by id at once, deleted ones too, absent and foreign ones left out", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const other = fresh("ws")
          const [live, trashed, foreign, absent] = [fresh("con"), fresh("con"), fresh("con"), fresh("con")]
          yield* storage.commit({
            streams: [],
            documents: [
              upsert(ws, live, { name: "live" }),
              upsert(ws, trashed, { name: "trashed" }, { version: 2, deletedAt: "2026-01-01T00:00:00.000Z" }),
              upsert(other, foreign, { name: "foreign" })
            ]
          })
          const found = yield* storage.getDocuments("contact", ws, [absent, trashed, live, foreign, live])
          expect([...found].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
            [yield* storage.getDocument("contact", ws, live), yield* storage.getDocument("contact", ws, trashed)].sort((a, b) =>
              a!.id < b!.id ? -1 : 1
            )
          )
          expect(found.find((d) => d.id === trashed)?.deletedAt).toBe("2026-01-01T00:00:00.000Z")
          expect(yield* storage.getDocuments("contact", ws, [])).toEqual([])
          expect(yield* storage.getDocuments("deal", ws, [live])).toEqual([])
        })
      )

      it.effect("answers record reads made at once as it answers each alone: its own document, links and settings version", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const other = fresh("ws")
          const [live, trashed, foreign, shared, absent, deal, gone] = ["con", "con", "con", "con", "con", "deal", "deal"].map(fresh)
          const trashedAt = "2026-01-01T00:00:00.000Z"
          yield* storage.commit({
            streams: [{ streamId: fresh("fields"), expectedVersion: 0, events: [event(ws, "x.settings")], settings: true }],
            documents: [
              upsert(ws, live!, { name: "live" }),
              upsert(ws, trashed!, { name: "trashed" }, { version: 2, deletedAt: trashedAt }),
              upsert(ws, shared!, { name: "mine" }),
              upsert(ws, deal!, { contact_ids: [live!] }, { collection: "deal" }),
              upsert(ws, gone!, { contact_ids: [live!] }, { collection: "deal", deletedAt: trashedAt })
            ]
          })
          yield* storage.commit({
            streams: [],
            documents: [upsert(other, foreign!, { name: "foreign" }), upsert(other, shared!, { name: "theirs" })]
          })
          const byDeals = { collection: "deal", field: "contact_ids" } as const
          const reads = [
            [ws, live, byDeals],
            [ws, trashed, byDeals],
            [ws, absent, byDeals],
            [ws, foreign, byDeals],
            [other, foreign, byDeals],
            [ws, shared, null],
            [other, shared, null],
            [ws, live, null]
          ] as const
          const read = ([workspaceId, id, linked]: (typeof reads)[number]) => storage.readRecord("contact", workspaceId, id!, linked)
          const alone = yield* Effect.forEach(reads, read)
          const atOnce = yield* Effect.all([...reads.map(read), storage.readRecord("company", ws, live!, null)], {
            concurrency: "unbounded"
          })
          expect(atOnce.slice(0, reads.length)).toEqual(alone)
          const shown = atOnce.map((r) => [r.document?.data["name"] ?? null, r.document?.deletedAt ?? null, r.linkedIds, r.settingsVersion])
          expect(shown).toEqual([
            ["live", null, [deal], 1],
            ["trashed", trashedAt, [], 1],
            [null, null, [], 1],
            [null, null, [], 1],
            ["foreign", null, [], 0],
            ["mine", null, [], 1],
            ["theirs", null, [], 0],
            ["live", null, [], 1],
            [null, null, [], 1]
          ])
        })
      )

      it.effect("keeps documents of one workspace out of another's reads", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws1 = fresh("ws")
          const ws2 = fresh("ws")
          const id = fresh("con")
          yield* storage.commit({ streams: [], documents: [upsert(ws1, id, { name: "Mine" })] })
          expect(yield* storage.getDocument("contact", ws2, id)).toBeNull()
          expect(yield* storage.queryDocuments("contact", ws2, byName())).toEqual([])
          expect((yield* storage.queryDocuments("contact", ws1, byName())).map((d) => d.id)).toEqual([id])
          expect(yield* storage.getDocument("deal", ws1, id)).toBeNull()
        })
      )

      it.effect("enforces unique keys per workspace and collection, freed by a null key or removal", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const other = fresh("ws")
          const [a, b, c] = [fresh("con"), fresh("con"), fresh("con")]
          const key = "email:ada@example.com"
          yield* storage.commit({ streams: [], documents: [upsert(ws, a, { name: "a" }, { uniqueKey: key })] })
          const taken = yield* Effect.result(
            storage.commit({
              streams: [{ streamId: b, expectedVersion: 0, events: [event(ws, "x.created")] }],
              documents: [upsert(ws, b, { name: "b" }, { uniqueKey: key })]
            })
          )
          expect(Result.isFailure(taken) && taken.failure._tag).toBe("UniqueViolation")
          if (Result.isFailure(taken) && taken.failure._tag === "UniqueViolation") expect(taken.failure.existingId).toBe(a)
          expect(yield* storage.readStream(b)).toEqual([])
          // the holder is found by its key, in its workspace and collection only
          expect((yield* storage.documentByUniqueKey("contact", ws, key))?.id).toBe(a)
          expect(yield* storage.documentByUniqueKey("contact", other, key)).toBeNull()
          expect(yield* storage.documentByUniqueKey("deal", ws, key)).toBeNull()
          // the same document may keep its own key; another workspace or collection may use it
          yield* storage.commit({ streams: [], documents: [upsert(ws, a, { name: "a2" }, { uniqueKey: key, version: 2 })] })
          yield* storage.commit({ streams: [], documents: [upsert(other, b, { name: "b" }, { uniqueKey: key })] })
          yield* storage.commit({
            streams: [],
            documents: [upsert(ws, c, { name: "c" }, { uniqueKey: key, collection: "deal" })]
          })
          // a soft-deleted holder releases it (null key), and so does moving it within one commit
          yield* storage.commit({ streams: [], documents: [upsert(ws, a, { name: "a" }, { uniqueKey: null, version: 3 })] })
          yield* storage.commit({ streams: [], documents: [upsert(ws, b, { name: "b" }, { uniqueKey: key })] })
          expect((yield* storage.documentByUniqueKey("contact", ws, key))?.data).toEqual({ id: b, name: "b" })
          const restore = yield* Effect.result(
            storage.commit({ streams: [], documents: [upsert(ws, a, { name: "a" }, { uniqueKey: key, version: 4 })] })
          )
          expect(Result.isFailure(restore)).toBe(true)
          yield* storage.commit({
            streams: [],
            documents: [
              upsert(ws, b, { name: "b" }, { uniqueKey: "email:other@example.com", version: 2 }),
              upsert(ws, a, { name: "a" }, { uniqueKey: key, version: 4 })
            ]
          })
          expect((yield* storage.getDocument("contact", ws, a))!.version).toBe(4)
          // two documents of one commit may not claim the same key
          const twice = yield* Effect.result(
            storage.commit({
              streams: [],
              documents: [
                upsert(ws, fresh("con"), { name: "x" }, { uniqueKey: "email:x@example.com" }),
                upsert(ws, fresh("con"), { name: "y" }, { uniqueKey: "email:x@example.com" })
              ]
            })
          )
          expect(Result.isFailure(twice)).toBe(true)
        })
      )

      it.effect("reads the log after a position, in sequence order, up to a limit", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const s = fresh("con")
          const { events } = yield* storage.commit({
            streams: [{ streamId: s, expectedVersion: 0, events: [1, 2, 3].map((n) => event(ws, "x.n", { n }, n)) }],
            documents: []
          })
          const start = events[0]!.sequence - 1
          const page = yield* storage.readLog({ after: start, limit: 2 })
          expect(page.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }])
          const rest = yield* storage.readLog({ after: page[1]!.sequence, limit: 100 })
          expect(rest[0]!.data).toEqual({ n: 3 })
          expect(rest.every((e, i) => i === 0 || e.sequence > rest[i - 1]!.sequence)).toBe(true)
        })
      )

      it.effect("reads one workspace's log between two feed positions, of some types, in the feed's order", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const [ws, other] = [fresh("ws"), fresh("ws")]
          const [a, b] = [fresh("con"), fresh("con")]
          yield* commitLogs(storage, {
            streams: [
              { streamId: a, expectedVersion: 0, events: [1, 2, 3, 4].map((n) => event(ws, n % 2 === 0 ? "x.even" : "x.odd", { n }, n)) },
              { streamId: b, expectedVersion: 0, events: [event(other, "x.odd", { n: 9 }, 9)] }
            ],
            documents: []
          })
          const all = yield* storage.readWorkspaceLog({ workspaceId: ws, after: null, limit: 100 })
          expect(all.map((e) => e.data["n"])).toEqual([1, 2, 3, 4])
          expect(all.every((e, i) => i === 0 || compareChangeFeedPositions(all[i - 1]!.position, e.position) < 0)).toBe(true)
          // The positions are the feed's, and so is the order.
          const feed = yield* storage.readFeed({ workspaceId: ws, after: null, types: [], limit: 100 })
          expect(all.map((e) => e.position)).toEqual(feed.events.map((e) => e.position))
          const head = yield* storage.workspaceHead(ws)
          expect(head).toEqual(all[3]!.position)
          const read = (after: ChangeFeedPosition | null, until: ChangeFeedPosition, limit: number, types?: ReadonlyArray<string>) =>
            Effect.map(
              storage.readWorkspaceLog({ workspaceId: ws, after, until, limit, ...(types === undefined ? {} : { types }) }),
              (page) => page.map((e) => e.data["n"])
            )
          expect(yield* read(null, head!, 100)).toEqual([1, 2, 3, 4])
          expect(yield* read(null, head!, 2)).toEqual([1, 2])
          expect(yield* read(all[0]!.position, all[2]!.position, 100)).toEqual([2, 3])
          expect(yield* read(null, head!, 100, ["x.odd"])).toEqual([1, 3])
          expect(yield* read(null, head!, 1, ["x.even"])).toEqual([2])
          expect(yield* read(head, head!, 100)).toEqual([])
        })
      )

      it.effect("hands out one workspace's feed after a position, of the types asked, in commit order", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const [ws, other] = [fresh("ws"), fresh("ws")]
          const [a, b, c] = [fresh("con"), fresh("deal"), fresh("con")]
          yield* storage.commit({
            streams: [{ streamId: a, expectedVersion: 0, events: [event(ws, "contact.created", { n: 1 }, 1)] }],
            documents: []
          })
          yield* commitLogs(storage, {
            streams: [
              {
                streamId: b,
                expectedVersion: 0,
                events: [event(ws, "deal.created", { n: 2 }, 2), event(ws, "deal.stage_changed", { n: 3 }, 3)]
              },
              { streamId: c, expectedVersion: 0, events: [event(other, "contact.created", { n: 9 }, 9)] }
            ],
            documents: []
          })
          yield* storage.commit({
            streams: [{ streamId: a, expectedVersion: 1, events: [event(ws, "contact.updated", { n: 4 }, 4)] }],
            documents: []
          })
          const page = (after: ChangeFeedPosition | null, types: ReadonlyArray<string> = [], limit = 100) =>
            storage.readFeed({ workspaceId: ws, after, types, limit })
          const read = (after: ChangeFeedPosition | null, types: ReadonlyArray<string> = [], limit = 100) =>
            Effect.map(page(after, types, limit), ({ events }) => events)
          const all = yield* read(null)
          expect(all.map((e) => e.data["n"])).toEqual([1, 2, 3, 4])
          for (let i = 1; i < all.length; i++) expect(compareChangeFeedPositions(all[i - 1]!.position, all[i]!.position)).toBeLessThan(0)
          expect(all[3]!.position.sequence).toBe(all[3]!.sequence)
          // Following positions a page at a time gives the same events, once each.
          const paged: Array<number> = []
          let after: ChangeFeedPosition | null = null
          for (;;) {
            const page: ReadonlyArray<ChangeFeedEvent> = yield* read(after, [], 1)
            if (page.length === 0) break
            paged.push(page[0]!.data["n"] as number)
            after = page[0]!.position
          }
          expect(paged).toEqual([1, 2, 3, 4])
          expect((yield* read(all[1]!.position)).map((e) => e.data["n"])).toEqual([3, 4])
          expect((yield* read(null, ["contact.*"])).map((e) => e.data["n"])).toEqual([1, 4])
          expect((yield* read(null, ["deal.stage_changed", "contact.updated"])).map((e) => e.data["n"])).toEqual([3, 4])
          // A prefix is a whole segment, and its pattern characters are text.
          expect(yield* read(null, ["contact.c*", "de%.*", "deal_*"])).toEqual([])
          expect((yield* read(null, [], 2)).map((e) => e.data["n"])).toEqual([1, 2])
          // Where the next read starts: a full page's last event; else the last event of the
          // workspace the read saw, whatever its type, so what the types left out is not read again.
          expect((yield* page(null, [], 2)).through).toEqual(all[1]!.position)
          expect((yield* page(null, ["deal.created"])).through).toEqual(all[3]!.position)
          expect((yield* page(all[3]!.position, ["deal.created"])).through).toEqual(all[3]!.position)
          expect((yield* storage.readFeed({ workspaceId: fresh("ws"), after: null, types: [], limit: 10 })).through).toBeNull()
          expect(yield* read(all[3]!.position)).toEqual([])
        })
      )

      it.effect("reads one event by its public id within its workspace", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const [ws, other] = [fresh("ws"), fresh("ws")]
          const [a, b] = [fresh("con"), fresh("con")]
          const mine = { ...event(ws, "contact.created", { n: 1 }), metadata: { ...event(ws, "x").metadata, eventId: fresh("evt") } }
          const theirs = {
            ...event(other, "contact.created", { n: 2 }),
            metadata: { ...event(other, "x").metadata, eventId: fresh("evt") }
          }
          yield* commitLogs(storage, {
            streams: [
              { streamId: a, expectedVersion: 0, events: [mine] },
              { streamId: b, expectedVersion: 0, events: [theirs] }
            ],
            documents: []
          })
          const found = yield* storage.readEvent(ws, mine.metadata.eventId)
          expect(found).toMatchObject({ type: "contact.created", data: { n: 1 }, streamId: a, streamVersion: 1 })
          expect(found?.metadata.eventId).toBe(mine.metadata.eventId)
          expect(yield* storage.readEvent(ws, theirs.metadata.eventId)).toBeNull()
          expect(yield* storage.readEvent(ws, fresh("evt"))).toBeNull()
        })
      )

      it.effect("drops an event's announced payload with its data when the stream is redacted", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const [gone, kept] = [fresh("con"), fresh("con")]
          const announced = (id: string) => {
            const base = event(ws, "contact.created", { email: `${id}@x.io` })
            return { ...base, metadata: { ...base.metadata, eventId: fresh("evt"), payload: { contact: { id, email: `${id}@x.io` } } } }
          }
          yield* storage.commit({
            streams: [
              { streamId: gone, expectedVersion: 0, events: [announced(gone)] },
              { streamId: kept, expectedVersion: 0, events: [announced(kept)] }
            ],
            documents: []
          })
          expect((yield* storage.readStream(gone))[0]!.metadata.payload).toEqual({ contact: { id: gone, email: `${gone}@x.io` } })
          yield* storage.commit({
            streams: [{ streamId: gone, expectedVersion: 1, events: [event(ws, "contact.purged", { at: "t" })] }],
            documents: [],
            redactStreams: [gone]
          })
          const [redacted] = yield* storage.readStream(gone)
          expect(redacted!.data).toEqual({ redacted: true })
          expect(redacted!.metadata).not.toHaveProperty("payload")
          expect(redacted!.metadata.workspaceId).toBe(ws)
          expect((yield* storage.readStream(kept))[0]!.metadata.payload).toEqual({ contact: { id: kept, email: `${kept}@x.io` } })
        })
      )

      it.effect("tells its listeners of a commit of record events to a workspace's feed, and not of other events", () =>
        TestClock.withLive(
          Effect.gen(function* () {
            const storage = yield* Storage
            const [ws, quiet] = [fresh("ws"), fresh("ws")]
            const heard = yield* Effect.forkChild(
              Stream.runHead(
                Stream.filter(
                  storage.feedChanges,
                  (change) => change._tag === "Appended" && (change.workspaceId === ws || change.workspaceId === quiet)
                )
              )
            )
            // A subscription starts listening asynchronously (on PostgreSQL, LISTEN on a connection of
            // its own): commit until it has heard one. The other workspace's events are no record's.
            let n = 0
            const committer = yield* Effect.forkChild(
              Effect.forever(
                Effect.suspend(() =>
                  commitLogs(storage, {
                    streams: [
                      { streamId: fresh("dlv"), expectedVersion: 0, events: [event(quiet, "delivery.scheduled", {}, n)] },
                      { streamId: fresh("con"), expectedVersion: 0, events: [event(ws, "contact.created", {}, n)] }
                    ],
                    documents: []
                  })
                ).pipe(Effect.andThen(Effect.sync(() => n++)), Effect.andThen(Effect.sleep("100 millis")))
              )
            )
            const told = yield* Fiber.join(heard).pipe(Effect.timeout("20 seconds"))
            yield* Fiber.interrupt(committer)
            expect(told).toEqual(Option.some({ _tag: "Appended", workspaceId: ws }))
          })
        )
      )

      it.effect("finds live documents holding a key across workspaces, in workspace and id order", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const key = `job_${fresh("k").replace(/[^a-z0-9]/gi, "")}`
          const [w1, w2] = [fresh("ws"), fresh("ws")].sort() as [string, string]
          const [x, y, z, gone, nulled] = [fresh("wh"), fresh("wh"), fresh("wh"), fresh("wh"), fresh("wh")] as const
          yield* storage.commit({
            streams: [],
            documents: [
              upsert(w2, x, { [key]: { id: "r1" } }, { collection: "webhook" }),
              upsert(w1, y, { [key]: "r2" }, { collection: "webhook" }),
              upsert(w1, z, { other: 1 }, { collection: "webhook" }),
              upsert(w1, gone, { [key]: "r3" }, { collection: "webhook", deletedAt: "2026-01-01T00:00:00.000Z" }),
              upsert(w1, nulled, { [key]: null }, { collection: "webhook" })
            ]
          })
          const found = yield* storage.documentsWith("webhook", key, 10)
          expect(found.map((d) => [d.workspaceId, d.id])).toEqual([
            [w1, y],
            [w2, x]
          ])
          expect(found[1]!.data[key]).toEqual({ id: "r1" })
          expect((yield* storage.documentsWith("webhook", key, 1)).map((d) => d.id)).toEqual([y])
        })
      )

      it.effect("queries with scope, filter, sort, keyset position and limit", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const names = ["delta", "alpha", "charlie", "bravo", "echo"]
          const ids = names.map(() => fresh("con"))
          yield* storage.commit({
            streams: [],
            documents: names.map((name, i) =>
              upsert(ws, ids[i]!, { name, n: i }, { deletedAt: name === "echo" ? "2026-01-01T00:00:00.000Z" : null })
            )
          })
          const live = yield* storage.queryDocuments("contact", ws, byName())
          expect(live.map((d) => d.data["name"])).toEqual(["alpha", "bravo", "charlie", "delta"])
          const afterBravo = yield* storage.queryDocuments("contact", ws, byName({ value: "bravo", id: ids[3]! }, 1))
          expect(afterBravo.map((d) => d.data["name"])).toEqual(["charlie"])
          const deleted = yield* storage.queryDocuments("contact", ws, { ...byName(), scope: "deleted" })
          expect(deleted.map((d) => d.data["name"])).toEqual(["echo"])
          const filtered = yield* storage.queryDocuments("contact", ws, {
            ...byName(),
            where: { _tag: "Compare", field: { name: "n", type: "number" }, op: "gte", value: 2 },
            sort: { field: { name: "n", type: "number" }, direction: "desc" }
          })
          expect(filtered.map((d) => d.data["name"])).toEqual(["bravo", "charlie"])
        })
      )

      it.effect("lists soft-deleted documents older than a cutoff across workspaces", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const [ws1, ws2] = [fresh("ws"), fresh("ws")]
          const [old1, old2, recent] = [fresh("deal"), fresh("deal"), fresh("deal")]
          yield* storage.commit({
            streams: [],
            documents: [
              upsert(ws1, old1, { name: "a" }, { collection: "deal", deletedAt: "2000-01-01T00:00:00.000Z" }),
              upsert(ws2, old2, { name: "b" }, { collection: "deal", deletedAt: "2000-01-02T00:00:00.000Z" }),
              upsert(ws1, recent, { name: "c" }, { collection: "deal", deletedAt: "2000-03-01T00:00:00.000Z" })
            ]
          })
          const expired = yield* storage.listDeletedBefore("deal", "2000-02-01T00:00:00.000Z", 1000)
          const mine = expired.filter((r) => [old1, old2, recent].includes(r.id))
          expect(mine.map((r) => r.id).sort()).toEqual([old1, old2].sort())
          expect(mine.find((r) => r.id === old2)?.workspaceId).toBe(ws2)
        })
      )

      it.effect("redacts a stream's earlier events in the same commit as its tombstone", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const s = fresh("con")
          yield* storage.commit({
            streams: [{ streamId: s, expectedVersion: 0, events: [event(ws, "contact.created", { email: "p@x.io" })] }],
            documents: [upsert(ws, s, { name: "p" })]
          })
          const tombstone: Commit = {
            streams: [{ streamId: s, expectedVersion: 1, events: [event(ws, "contact.purged", { at: "t" })] }],
            documents: [{ _tag: "Remove", collection: "contact", workspaceId: ws, id: s }],
            redactStreams: [s]
          }
          yield* storage.commit(tombstone)
          const stream = yield* storage.readStream(s)
          expect(stream.map((e) => e.type)).toEqual(["contact.created", "contact.purged"])
          expect(stream[0]!.data).toEqual({ redacted: true })
          expect(stream[1]!.data).toEqual({ at: "t" })
          const logged = yield* storage.readLog({ after: stream[0]!.sequence - 1, limit: 1 })
          expect(logged[0]!.data).toEqual({ redacted: true })
          expect(yield* storage.getDocument("contact", ws, s)).toBeNull()
        })
      )

      it.effect("reports a workspace's head: the feed position of its last event, null for one without any", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const [ws, other] = [fresh("ws"), fresh("ws")]
          yield* storage.commit({
            streams: [{ streamId: fresh("con"), expectedVersion: 0, events: [event(ws, "x.one"), event(ws, "x.two", {}, 1)] }],
            documents: []
          })
          yield* storage.commit({
            streams: [{ streamId: fresh("con"), expectedVersion: 0, events: [event(other, "x.one")] }],
            documents: []
          })
          const log = yield* storage.readWorkspaceLog({ workspaceId: ws, after: null, limit: 100 })
          expect(log.map((e) => e.type)).toEqual(["x.one", "x.two"])
          expect(yield* storage.workspaceHead(ws)).toEqual(log[1]!.position)
          expect(yield* storage.workspaceHead(fresh("ws"))).toBeNull()
        })
      )

      it.effect("replaces the documents of the named collections only, and counts the log's events", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const ws = fresh("ws")
          const [a, b, key] = [fresh("con"), fresh("con"), fresh("idem")]
          const before = yield* storage.eventCount
          const { events } = yield* storage.commit({
            streams: [{ streamId: a, expectedVersion: 0, events: [event(ws, "x.one")] }],
            documents: [
              upsert(ws, a, { name: "old" }, { uniqueKey: "email:a@x.io" }),
              upsert(ws, key, { status: 201 }, { collection: "idempotency" })
            ]
          })
          expect((yield* storage.eventCount) - before).toBe(events.length)
          yield* storage.replaceDocuments(["contact", "deal"], [upsert(ws, b, { name: "new" }, { uniqueKey: "email:a@x.io" })])
          expect(yield* storage.getDocument("contact", ws, a)).toBeNull()
          expect((yield* storage.getDocument("contact", ws, b))?.data).toEqual({ id: b, name: "new" })
          expect(yield* storage.getDocument("idempotency", ws, key)).not.toBeNull()
          // the unique key moved with the documents
          const clash = yield* Effect.result(
            storage.commit({ streams: [], documents: [upsert(ws, a, { name: "again" }, { uniqueKey: "email:a@x.io" })] })
          )
          expect(Result.isFailure(clash)).toBe(true)
        })
      )

      it.effect("answers ping", () => Effect.flatMap(Storage, (storage) => storage.ping))

      settingsContractCases(it)
    })
  })
}
