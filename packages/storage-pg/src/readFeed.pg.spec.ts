import type { NewEvent } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { readUntil } from "../../../test/support/feedPolling.js"
import { testDatabase } from "../../../test/support/pg.js"
import * as PgStorage from "./PgStorage.js"

const WORKSPACE = "ws_feed"

const event = (n: number): NewEvent => ({
  type: "contact.created",
  data: { n },
  metadata: { workspaceId: WORKSPACE, eventId: `evt_${n}`, requestId: null, actor: null }
})

const client = (url: string) =>
  PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

/** Advisory lock classes of this test ("test" in ASCII, and the next): the gate, and the stalled event's sequence. */
const GATE = 1_952_805_748
const STALLED = 1_952_805_749

/**
 * A commit of stream con_late stops right after inserting its event, until the gate opens: it shows
 * its event's sequence as a lock of class STALLED it holds, then waits for the gate's. A real commit,
 * as a host makes it, that took a sequence and has not committed.
 */
const stallLateCommits = [
  `CREATE FUNCTION test_stall_late() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock_shared(${STALLED}, NEW.sequence::int);
    PERFORM pg_advisory_xact_lock_shared(${GATE}, 0);
    RETURN NULL;
  END
  $$`,
  `CREATE TRIGGER test_stall_late AFTER INSERT ON ds_events FOR EACH ROW WHEN (NEW.stream_id = 'con_late')
    EXECUTE FUNCTION test_stall_late()`
]

/**
 * The gap a feed by sequence falls into: a transaction takes a sequence, another takes a higher
 * one and commits first. A reader by sequence would hand out the higher one and move past the
 * lower for good; the feed holds both back until the first transaction ends, then gives them in
 * transaction order.
 *
 * Other tests commit on the same server meanwhile, and the feed may hold back an event of this
 * one while some of their transactions run: what the feed should give, the test reads until it
 * does (readUntil), never from a single read right after the commit.
 */
describe("the change feed on PostgreSQL", () => {
  it.live("holds back what a transaction still running could land behind, then gives both in commit order", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const storage = yield* PgStorage.make(url)
      // Another host, so that its commit cannot be held up behind the stalled one.
      const other = yield* PgStorage.make(url)
      const sql = yield* client(url)
      // The gate's transaction keeps its connection: its own client, beside the one that looks on.
      const gateKeeper = yield* client(url)
      for (const statement of stallLateCommits) yield* sql.unsafe(statement)
      const read = (after: { readonly transaction: string; readonly sequence: number } | null) =>
        storage.readFeed({ workspaceId: WORKSPACE, after, types: [], limit: 100 })
      const numbers = (page: { readonly events: ReadonlyArray<{ readonly data: Record<string, unknown> }> }) =>
        page.events.map((e) => e.data["n"])

      yield* storage.commit({ streams: [{ streamId: "con_before", expectedVersion: 0, events: [event(0)] }], documents: [] })
      const before = yield* readUntil(read(null), (page) => page.events.length > 0, "the first event in the feed")
      expect(numbers(before)).toEqual([0])
      const zero = before.events[0]!.position

      const gateShut = yield* Deferred.make<void>()
      const open = yield* Deferred.make<void>()
      const gate = yield* Effect.forkScoped(
        gateKeeper.withTransaction(
          Effect.gen(function* () {
            yield* gateKeeper.unsafe(`SELECT pg_advisory_xact_lock(${GATE}, 0)`)
            yield* Deferred.succeed(gateShut, undefined)
            yield* Deferred.await(open)
          })
        )
      )
      yield* Deferred.await(gateShut)
      const late = yield* Effect.forkScoped(
        storage.commit({ streams: [{ streamId: "con_late", expectedVersion: 0, events: [event(1)] }], documents: [] })
      )
      const stalled = yield* readUntil(
        sql.unsafe<{ sequence: string }>(
          `SELECT mark.objid::text AS sequence FROM pg_locks AS mark JOIN pg_locks AS gate USING (pid) ` +
            `WHERE mark.locktype = 'advisory' AND mark.classid = ${STALLED} AND mark.granted ` +
            `AND gate.locktype = 'advisory' AND gate.classid = ${GATE} AND NOT gate.granted ` +
            `AND mark.database = (SELECT oid FROM pg_database WHERE datname = current_database())`
        ),
        (rows) => rows.length > 0,
        "the late commit to stop after inserting its event"
      )
      const lateSequence = Number(stalled[0]!.sequence)
      const { events } = yield* other.commit({
        streams: [{ streamId: "con_early", expectedVersion: 0, events: [event(2)] }],
        documents: []
      })
      expect(events[0]!.sequence).toBeGreaterThan(lateSequence)

      // Committed, and first by sequence to any reader of the log; not yet given by the feed, which
      // has given the event before them.
      const byLog = yield* storage.readLog({ after: lateSequence - 1, limit: 10 })
      expect(byLog.map((e) => e.data["n"])).toEqual([2])
      expect(numbers(yield* read(zero))).toEqual([])

      yield* Deferred.succeed(open, undefined)
      yield* Fiber.join(gate)
      yield* Fiber.join(late)
      const after = yield* readUntil(read(null), (page) => page.events.length >= 3, "the three events in the feed")
      expect(numbers(after)).toEqual([0, 1, 2])
    }).pipe(Effect.scoped)
  )
})
