import type { NewEvent } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
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

/**
 * The gap a feed by sequence falls into: a transaction takes a sequence, another takes a higher
 * one and commits first. A reader by sequence would hand out the higher one and move past the
 * lower for good; the feed holds both back until the first transaction ends, then gives them in
 * transaction order.
 */
describe("the change feed on PostgreSQL", () => {
  it.live("holds back what a transaction still running could land behind, then gives both in commit order", () =>
    Effect.gen(function*() {
      const url = yield* testDatabase
      const storage = yield* PgStorage.make(url)
      const sql = yield* client(url)
      const feed = Effect.map(storage.readFeed({ workspaceId: WORKSPACE, after: null, types: [], limit: 100 }), ({ events }) =>
        events.map((e) => e.data["n"]))
      yield* storage.commit({ streams: [{ streamId: "con_before", expectedVersion: 0, events: [event(0)] }], documents: [] })

      const inserted = yield* Deferred.make<number>()
      const release = yield* Deferred.make<void>()
      const late = yield* Effect.forkScoped(sql.withTransaction(Effect.gen(function*() {
        const [row] = yield* sql.unsafe<{ sequence: string }>(
          `INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at) ` +
            `VALUES ('con_late', 1, $1, 'contact.created', '{"n": 1}'::jsonb, $2::jsonb, now()) RETURNING sequence::text`,
          [WORKSPACE, JSON.stringify(event(1).metadata)]
        )
        yield* Deferred.succeed(inserted, Number(row!.sequence))
        yield* Deferred.await(release)
      })))
      const lateSequence = yield* Deferred.await(inserted)
      const { events } = yield* storage.commit({ streams: [{ streamId: "con_early", expectedVersion: 0, events: [event(2)] }], documents: [] })
      expect(events[0]!.sequence).toBeGreaterThan(lateSequence)

      // Committed, and first by sequence to any reader of the log; not yet given by the feed.
      const byLog = yield* storage.readLog({ after: lateSequence - 1, limit: 10 })
      expect(byLog.map((e) => e.data["n"])).toEqual([2])
      expect(yield* feed).toEqual([0])

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(late)
      expect(yield* feed).toEqual([0, 1, 2])
    }).pipe(Effect.scoped))
})
