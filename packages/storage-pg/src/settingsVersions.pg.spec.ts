import {
  type Commit,
  type NewEvent,
  type SettingsChange,
  Storage,
  type StorageService,
  UniqueViolation,
  VersionConflict
} from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Queue, Redacted, Result, Schedule, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { testDatabase } from "../../../test/support/pg.js"
import * as PgStorage from "./PgStorage.js"

const event = (workspaceId: string, n: number): NewEvent => ({
  type: "x.n",
  data: { n },
  metadata: { workspaceId, eventId: `evt_${workspaceId}_${n}`, requestId: null, actor: null }
})

let counter = 0
const fresh = (prefix: string) => `${prefix}_${(counter++).toString(36)}`

/** A new stream of `workspaceId`, a settings stream or not, decided at `read` (the settings versions it read). */
const create = (
  workspaceId: string,
  options: { readonly settings?: boolean; readonly read?: Commit["settingsRead"]; readonly key?: string } = {}
): Commit => {
  const id = fresh(options.settings === true ? "fields" : "con")
  return {
    streams: [
      { streamId: id, expectedVersion: 0, events: [event(workspaceId, 1)], ...(options.settings === true ? { settings: true } : {}) }
    ],
    documents:
      options.key === undefined
        ? []
        : [
            {
              _tag: "Upsert",
              collection: "contact",
              workspaceId,
              id,
              version: 1,
              deletedAt: null,
              uniqueKey: options.key,
              searchWords: [],
              data: { id }
            }
          ],
    ...(options.read === undefined ? {} : { settingsRead: options.read })
  }
}

const failureOf = <A, E>(result: Result.Result<A, E>) => (Result.isFailure(result) ? result.failure : null)

const READY = "ws_ready"

/** The next change of `heard` that `wanted` accepts (the others are passed over). */
const next = (heard: Queue.Queue<SettingsChange>, wanted: (change: SettingsChange) => boolean): Effect.Effect<SettingsChange> =>
  Effect.flatMap(Queue.take(heard), (change) => (wanted(change) ? Effect.succeed(change) : next(heard, wanted)))

const isChangeOf = (workspaceId: string) => (change: SettingsChange) => change._tag === "Changed" && change.workspaceId === workspaceId

/**
 * One subscription to `listener`'s settingsChanges, every change it hears in `heard` (and in
 * `seen`), returned once it listens: when it has heard one of the changes `writer` commits to
 * READY until then (a subscription starts listening asynchronously, on a connection of its own).
 */
const subscribe = (listener: StorageService, writer: StorageService) =>
  Effect.gen(function* () {
    const heard = yield* Queue.unbounded<SettingsChange>()
    const seen: Array<SettingsChange> = []
    yield* Effect.forkScoped(
      Stream.runForEach(listener.settingsChanges, (change) => {
        seen.push(change)
        return Queue.offer(heard, change)
      })
    )
    const committer = yield* Effect.forkChild(
      Effect.forever(
        Effect.andThen(
          Effect.suspend(() => writer.commit(create(READY, { settings: true }))),
          Effect.sleep("100 millis")
        )
      )
    )
    yield* next(heard, isChangeOf(READY)).pipe(Effect.timeout("20 seconds"))
    yield* Fiber.interrupt(committer)
    return { seen, next: (wanted: (change: SettingsChange) => boolean) => next(heard, wanted).pipe(Effect.timeout("20 seconds")) }
  })

const notReady = (change: SettingsChange) => !isChangeOf(READY)(change)

/** A host's storage: a pool of its own, its commit lanes and listeners. */
const host = (options: PgStorage.Options) => Effect.map(Layer.build(PgStorage.layer(options)), Context.get(Storage))

describe("settings versions on PostgreSQL", () => {
  it.live(
    "in a batch, each commit's settings read is checked on its own, and a commit undone there changes nothing",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        // One commit lane: the commits that arrive while a batch runs go together in the next one.
        const storage = yield* host({ url, commitLanes: 1, listenHeartbeat: "1 second" })
        const changes = yield* subscribe(storage, storage)
        const [ws, taken] = ["ws_read", "ws_taken"]
        yield* storage.commit(create(ws, { settings: true }))
        yield* storage.commit(create(taken, { key: "k@x.io" }))

        // All at once, so that they gather in batches behind the first: reads of the current version
        // and of a stale one, and settings changes to `taken` that claim a key another contact holds.
        const kinds = Array.from({ length: 24 }, (_, i) => (["current", "stale", "undone"] as const)[i % 3]!)
        const commits = kinds.map((kind) =>
          kind === "current"
            ? create(ws, { read: [{ workspaceId: ws, version: 1 }] })
            : kind === "stale"
              ? create(ws, { read: [{ workspaceId: ws, version: 0 }] })
              : create(taken, { settings: true, key: "k@x.io" })
        )
        const results = yield* Effect.forEach(commits, (commit) => Effect.result(storage.commit(commit)), { concurrency: "unbounded" })
        // Batched indeed: commits of one batch share its transaction (migration 0009).
        const admin = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
        const [row] = yield* admin.unsafe<{ readonly transactions: bigint }>(
          `SELECT count(DISTINCT xact_id) AS transactions FROM ds_events WHERE stream_id = ANY($1::text[])`,
          [commits.map((commit) => commit.streams[0]!.streamId)]
        )
        expect(Number(row?.transactions)).toBeLessThan(kinds.filter((kind) => kind === "current").length)

        for (const [i, kind] of kinds.entries()) {
          const failure = failureOf(results[i]!)
          if (kind === "current") expect(failure).toBeNull()
          if (kind === "stale") {
            expect(failure).toBeInstanceOf(VersionConflict)
            expect({ ...failure }).toEqual({ _tag: "VersionConflict", streamId: `settings:${ws}`, expectedVersion: 0, actualVersion: 1 })
          }
          if (kind === "undone") expect(failure).toBeInstanceOf(UniqueViolation)
          const stored = yield* storage.readStream(commits[i]!.streams[0]!.streamId)
          expect(stored.length, kind).toBe(kind === "current" ? 1 : 0)
        }
        expect(yield* storage.settingsVersion(ws)).toBe(1)
        expect(yield* storage.settingsVersion(taken)).toBe(0)
        // Notifications arrive in commit order: had an undone commit sent one, it would come before the marker's.
        yield* storage.commit(create("ws_marker", { settings: true }))
        expect(yield* changes.next(notReady)).toEqual({ _tag: "Changed", workspaceId: ws })
        expect(yield* changes.next(notReady)).toEqual({ _tag: "Changed", workspaceId: "ws_marker" })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a commit that read settings waits for a change to them in progress, then finds its read stale",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const storage = yield* host({ url })
        const client = () => PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
        const [writer, observer] = [yield* client(), yield* client()]
        const ws = "ws_raced"
        // A settings change by another host, its transaction left open: its version is moved on but
        // not committed, so a read of it now still sees 0.
        const [moved, release] = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
        // Should the test fail half way, the change still ends before its connection's pool closes.
        yield* Effect.addFinalizer(() => Deferred.succeed(release, undefined))
        const change = yield* Effect.forkChild(
          writer.withTransaction(
            Effect.gen(function* () {
              yield* writer.unsafe(
                `SELECT ds_commit_with_settings($1::jsonb, $2::jsonb, '{}'::text[], '[]'::jsonb, '[]'::jsonb, now(), '[]'::jsonb)`,
                [
                  JSON.stringify([{ i: 0, id: "fields_raced", w: ws, expected: 0, added: 1, settings: true }]),
                  JSON.stringify([{ i: 0, s: "fields_raced", v: 1, w: ws, t: "x.n", d: {}, m: event(ws, 1).metadata }])
                ]
              )
              yield* Deferred.succeed(moved, undefined)
              yield* Deferred.await(release)
            })
          )
        )
        yield* Deferred.await(moved)
        const reader = yield* Effect.forkChild(Effect.result(storage.commit(create(ws, { read: [{ workspaceId: ws, version: 0 }] }))))
        // The reader waits on the change's lock (rather than passing on the version it sees)...
        const waiting = observer
          .unsafe<{ readonly waiting: bigint }>(
            `SELECT count(*) AS waiting FROM pg_locks
         WHERE locktype = 'advisory' AND classid = 1936028788 AND NOT granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
          )
          .pipe(Effect.repeat({ until: ([row]) => Number(row?.waiting) > 0, schedule: Schedule.spaced("20 millis") }))
        expect(yield* Effect.raceFirst(Effect.as(waiting, "waits"), Effect.as(Fiber.await(reader), "went on"))).toBe("waits")
        // ...and once the change commits, finds its read stale.
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(change)
        const failure = failureOf(yield* Fiber.join(reader))
        expect({ ...failure }).toEqual({ _tag: "VersionConflict", streamId: `settings:${ws}`, expectedVersion: 0, actualVersion: 1 })
        expect(yield* storage.settingsVersion(ws)).toBe(1)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "another host hears a change once it is committed, and nothing of a commit that was refused",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const writer = yield* host({ url })
        const other = yield* host({ url, listenHeartbeat: "1 second" })
        const changes = yield* subscribe(other, writer)
        const [refused, heard] = ["ws_refused", "ws_heard"]

        // Refused settings changes: at a stale stream version, after a stale settings read, with a
        // unique key another contact holds.
        const atStaleVersion = create(refused, { settings: true })
        const stale = yield* Effect.flip(
          writer.commit({ ...atStaleVersion, streams: [{ ...atStaleVersion.streams[0]!, expectedVersion: 3 }] })
        )
        expect({ ...stale }).toMatchObject({ _tag: "VersionConflict", expectedVersion: 3, actualVersion: 0 })
        const staleRead = yield* Effect.flip(
          writer.commit(create(refused, { settings: true, read: [{ workspaceId: refused, version: 5 }] }))
        )
        expect({ ...staleRead }).toEqual({ _tag: "VersionConflict", streamId: `settings:${refused}`, expectedVersion: 5, actualVersion: 0 })
        yield* writer.commit(create(refused, { key: "k@x.io" }))
        expect(yield* Effect.flip(writer.commit(create(refused, { settings: true, key: "k@x.io" })))).toBeInstanceOf(UniqueViolation)
        expect(yield* other.settingsVersion(refused)).toBe(0)

        yield* writer.commit(create(heard, { settings: true, read: [{ workspaceId: heard, version: 0 }] }))
        expect(yield* changes.next(notReady)).toEqual({ _tag: "Changed", workspaceId: heard })
        expect(yield* other.settingsVersion(heard)).toBe(1)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "says Resumed when it listens again after its LISTEN connection was killed",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const storage = yield* host({ url, listenHeartbeat: "200 millis" })
        const admin = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
        const changes = yield* subscribe(storage, storage)
        expect(changes.seen.filter((change) => change._tag === "Resumed")).toEqual([])
        const killed = yield* admin.unsafe<{ readonly pid: number }>(
          `SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'dealstream-listen-settings'`
        )
        expect(killed.length).toBeGreaterThan(0)
        yield* changes.next((change) => change._tag === "Resumed")
        // listening again: a change committed now is heard
        yield* storage.commit(create("ws_after", { settings: true }))
        expect(yield* changes.next(notReady)).toEqual({ _tag: "Changed", workspaceId: "ws_after" })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
