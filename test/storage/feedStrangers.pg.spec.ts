import type { Commit, NewEvent } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import { paramsOf } from "../../packages/storage-pg/src/commit.js"
import { commitCall } from "../../packages/storage-pg/src/commitBatches.js"
import { serverXmin } from "../../packages/storage-pg/src/feedBound.js"
import { commitFunctionText } from "../../packages/storage-pg/src/functions/ds_commit.js"
import * as PgStorage from "../../packages/storage-pg/src/PgStorage.js"
import { readFeed } from "../../packages/storage-pg/src/readFeed.js"
import { testDatabase } from "../support/pg.js"

/**
 * The feed of one workspace waits only for that workspace's own commits (migration 0017,
 * feedBound.ts). It used to read below the snapshot's xmin, which any transaction on the server
 * holds back; that bound is kept in feedBound.ts and run here beside the new one, so each test
 * shows the stall it guards against.
 */
const WS_A = "ws_feed_a"
const WS_B = "ws_feed_b"

const event = (workspaceId: string, n: number): NewEvent => ({
  type: "contact.created",
  data: { n },
  metadata: { workspaceId, eventId: `evt_${workspaceId}_${n}`, requestId: null, actor: null }
})

const commitOf = (workspaceId: string, streamId: string, n: number, expectedVersion = 0): Commit => ({
  streams: [{ streamId, expectedVersion, events: [event(workspaceId, n)] }],
  documents: []
})

const client = (url: string) =>
  PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

/** Runs `body` in a transaction on `sql`, held open after it until `release` is done. */
const holdOpen = <A>(sql: SqlClient, body: Effect.Effect<A, unknown>) =>
  Effect.gen(function* () {
    const opened = yield* Deferred.make<A>()
    const release = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkScoped(
      sql.withTransaction(
        Effect.gen(function* () {
          yield* Deferred.succeed(opened, yield* body)
          yield* Deferred.await(release)
        })
      )
    )
    const value = yield* Deferred.await(opened)
    return { value, release: Effect.andThen(Deferred.succeed(release, undefined), Fiber.join(fiber)) }
  })

/** An id for the transaction, without writing anything. */
const takeId = (sql: SqlClient) => Effect.map(sql.unsafe<{ id: string }>(`SELECT pg_current_xact_id()::text AS id`), ([row]) => row!.id)

const numbers = (page: { readonly events: ReadonlyArray<{ readonly data: Record<string, unknown> }> }) =>
  page.events.map((e) => e.data["n"])

const page = (workspaceId: string) => ({ workspaceId, after: null, types: [], limit: 100 })

describe("the change feed and transactions that are not its workspace's", () => {
  it.live("a transaction open in another database, or in this one outside the commits, holds back no feed", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const elsewhere = yield* testDatabase
      const storage = yield* PgStorage.make(url)
      const reader = yield* client(url)
      const strangerSql = yield* client(elsewhere)
      const stranger = yield* holdOpen(strangerSql, takeId(strangerSql))
      // A session of this database idle in a transaction that has an id, and no commit of ours.
      const neighbourSql = yield* client(url)
      const idle = yield* holdOpen(neighbourSql, takeId(neighbourSql))
      expect(stranger.value).toMatch(/^\d+$/)
      expect(idle.value).toMatch(/^\d+$/)

      yield* storage.commit(commitOf(WS_A, "con_one", 1))
      expect(numbers(yield* storage.readFeed(page(WS_A)))).toEqual([1])
      // The server-wide bound it replaces waits for both strangers.
      expect(numbers(yield* readFeed(reader, serverXmin)(page(WS_A)))).toEqual([])

      // (Once they end, the old bound shows event 1 only when no other transaction on the server
      // is older than it: not a thing a test beside others can wait for.)
      yield* stranger.release
      yield* idle.release
    }).pipe(Effect.scoped)
  )

  /**
   * The planted commit: ds_commit's text without the feed mark (rendered from its file, so every
   * statement but the mark is the one every commit runs), created under a name of its own in the
   * test's database only. The schema has no unmarked commit.
   */
  const plantedCommit = "test_commit_unmarked"

  /**
   * A commit of WS_A stored by `commitFunction` inside a transaction that does not end (what a host
   * sees of a commit whose COMMIT has not come back yet), commits of WS_A and WS_B after it; what
   * the feeds show while it is open, and after it ends, from the start and from a reader's cursor.
   */
  const stalledCommit = (commitFunction: "ds_commit" | typeof plantedCommit) =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const storage = yield* PgStorage.make(url)
      yield* storage.commit(commitOf(WS_A, "con_before", 0))
      const stalledSql = yield* client(url)
      if (commitFunction === plantedCommit) yield* stalledSql.unsafe(commitFunctionText(plantedCommit, "unmarked"))
      const p = paramsOf(commitOf(WS_A, "con_stalled", 1), new Date().toISOString())
      const stalled = yield* holdOpen(stalledSql, stalledSql.unsafe(...commitCall(p, commitFunction)))
      yield* storage.commit(commitOf(WS_A, "con_after", 2))
      yield* storage.commit(commitOf(WS_B, "con_other", 3))
      const whileOpen = { a: yield* storage.readFeed(page(WS_A)), b: yield* storage.readFeed(page(WS_B)) }
      yield* stalled.release
      const fromCursor = yield* storage.readFeed({ ...page(WS_A), after: whileOpen.a.through })
      const fromStart = yield* storage.readFeed(page(WS_A))
      return {
        whileOpen: { a: numbers(whileOpen.a), b: numbers(whileOpen.b) },
        fromCursor: numbers(fromCursor),
        fromStart: numbers(fromStart)
      }
    }).pipe(Effect.scoped)

  it.live("a commit held open holds back its own workspace's feed only, and gives its events in commit order when it ends", () =>
    Effect.gen(function* () {
      const seen = yield* stalledCommit("ds_commit")
      // Event 2 is committed, but the stalled commit could still land before it.
      expect(seen.whileOpen).toEqual({ a: [0], b: [3] })
      expect(seen.fromCursor).toEqual([1, 2])
      expect(seen.fromStart).toEqual([0, 1, 2])
    })
  )

  it.live("planted: a commit without the feed lock is not waited for, and its event lands behind a reader's cursor", () =>
    Effect.gen(function* () {
      // The planted commit is ds_commit without its mark, as commits were before migration 0017:
      // the mark is what the bound relies on, and this is the gap the test above would see without it.
      const seen = yield* stalledCommit(plantedCommit)
      expect(seen.whileOpen).toEqual({ a: [0, 2], b: [3] })
      expect(seen.fromCursor).toEqual([])
      expect(seen.fromStart).toEqual([0, 1, 2])
    })
  )

  it.live("a group commit held open holds back the feed of every workspace it appends to", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const storage = yield* PgStorage.make(url)
      const batchSql = yield* client(url)
      const at = new Date().toISOString()
      const items = [paramsOf(commitOf(WS_A, "con_batch_a", 1), at), paramsOf(commitOf(WS_B, "con_batch_b", 2), at)]
      const batch = yield* holdOpen(batchSql, batchSql.unsafe(`SELECT ds_commit_batch($1::jsonb)`, [JSON.stringify(items)]))
      yield* storage.commit(commitOf(WS_A, "con_after_a", 3))
      yield* storage.commit(commitOf(WS_B, "con_after_b", 4))
      expect(numbers(yield* storage.readFeed(page(WS_A)))).toEqual([])
      expect(numbers(yield* storage.readFeed(page(WS_B)))).toEqual([])
      yield* batch.release
      expect(numbers(yield* storage.readFeed(page(WS_A)))).toEqual([1, 3])
      expect(numbers(yield* storage.readFeed(page(WS_B)))).toEqual([2, 4])
    }).pipe(Effect.scoped)
  )

  it.live("a commit that stalls inside its statement holds back its workspace's feed until the statement timeout ends it", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const storage = yield* PgStorage.make(url)
      yield* storage.commit({
        streams: [
          { streamId: "con_a", expectedVersion: 0, events: [event(WS_A, 0)] },
          { streamId: "con_b", expectedVersion: 0, events: [event(WS_A, 10)] }
        ],
        documents: []
      })
      // Another session holds con_b's version row. The next commit of con_a and con_b locks con_a's
      // row first (ids in order), which gives it a transaction id, then waits for con_b's inside
      // ds_commit, feed lock taken, until its statement times out.
      const blockerSql = yield* client(url)
      const blocker = yield* holdOpen(blockerSql, blockerSql.unsafe(`SELECT 1 FROM ds_streams WHERE stream_id = 'con_b' FOR UPDATE`))
      const stalledSql = yield* client(url)
      const pid = (yield* stalledSql.unsafe<{ pid: number }>(`SELECT pg_backend_pid() AS pid`))[0]!.pid
      const p = paramsOf(
        {
          streams: [
            { streamId: "con_a", expectedVersion: 1, events: [event(WS_A, 1)] },
            { streamId: "con_b", expectedVersion: 1, events: [event(WS_A, 11)] }
          ],
          documents: []
        },
        new Date().toISOString()
      )
      const stalledCommit = yield* Effect.forkScoped(
        Effect.exit(
          stalledSql.withTransaction(
            Effect.andThen(stalledSql.unsafe(`SET LOCAL statement_timeout = '5s'`), stalledSql.unsafe(...commitCall(p)))
          )
        )
      )
      // Waiting on the row lock, with an id of its own: the moment a reader must hold back for.
      const admin = yield* client(url)
      const waiting = `SELECT backend_xid IS NOT NULL AND wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1`
      yield* Effect.repeat(admin.unsafe<{ waiting: boolean }>(waiting, [pid]), { until: ([row]) => row?.waiting === true })
      yield* storage.commit(commitOf(WS_A, "con_later", 2))
      yield* storage.commit(commitOf(WS_B, "con_other", 3))
      const heldA = numbers(yield* storage.readFeed(page(WS_A)))
      const shownB = numbers(yield* storage.readFeed(page(WS_B)))
      const [still] = yield* admin.unsafe<{ waiting: boolean }>(waiting, [pid])
      // The reads count only while the commit still waited: 5 s leaves a loaded machine ample room.
      expect(still?.waiting).toBe(true)
      expect(heldA).toEqual([0, 10])
      expect(shownB).toEqual([3])

      const exit = yield* Fiber.join(stalledCommit)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(numbers(yield* storage.readFeed(page(WS_A)))).toEqual([0, 10, 2])
      yield* blocker.release
    }).pipe(Effect.scoped)
  )
})
