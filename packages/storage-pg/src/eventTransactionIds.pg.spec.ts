import type { NewEvent } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import { emptyDatabase, testDatabase } from "../../../test/support/pg.js"
import { migrate } from "./migrate.js"
import { migrations } from "./migrations/index.js"
import * as PgStorage from "./PgStorage.js"

const event = (n: number): NewEvent => ({
  type: "x.n",
  data: { n },
  metadata: { workspaceId: "ws_xact", eventId: `evt_${n}`, requestId: null, actor: null }
})

const client = (url: string) =>
  PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

/** sequence → xact_id, as text: xid8 is a 64-bit number, compared here as a bigint. */
const xactIds = (sql: SqlClient) =>
  Effect.map(
    sql.unsafe<{ readonly sequence: bigint; readonly xact_id: string }>(
      `SELECT sequence, xact_id::text AS xact_id FROM ds_events ORDER BY sequence`
    ),
    (rows) => new Map(rows.map((row) => [Number(row.sequence), BigInt(row.xact_id)]))
  )

// Commits batched by group commit (commitBatches.ts) run in the batch's one transaction and so share
// its id. That is what the id is for: they become visible at one instant, all or none, so a reader
// following commit order takes them together (in sequence order within), just as it takes the
// several events of one commit.
describe("event transaction ids", () => {
  it.live("the events of one commit share their transaction's id, and a later commit's is greater", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const storage = yield* PgStorage.make(url)
      const first = yield* storage.commit({
        streams: [
          { streamId: "con_a", expectedVersion: 0, events: [event(1), event(2)] },
          { streamId: "con_b", expectedVersion: 0, events: [event(3)] }
        ],
        documents: []
      })
      const second = yield* storage.commit({ streams: [{ streamId: "con_a", expectedVersion: 2, events: [event(4)] }], documents: [] })

      const ids = yield* xactIds(yield* client(url))
      const [a, b, c] = first.events.map((e) => ids.get(e.sequence))
      expect(a).toBeGreaterThan(0n)
      expect([b, c]).toEqual([a, a])
      const later = ids.get(second.events[0]!.sequence)!
      expect(later).toBeGreaterThan(a!)
    }).pipe(Effect.scoped)
  )

  it.live("events logged before the migration read 0, which comes before every recorded id", () =>
    Effect.gen(function* () {
      const url = yield* emptyDatabase
      const sql = yield* client(url)
      yield* migrate(sql, { migrations: migrations.filter((m) => m.id < 9) })
      yield* sql.unsafe(`SELECT ds_commit($1::jsonb, $2::jsonb, '{}'::text[], '[]'::jsonb, '[]'::jsonb, now())`, [
        JSON.stringify([{ i: 0, id: "con_old", w: "ws_xact", expected: 0, added: 1 }]),
        JSON.stringify([{ i: 0, s: "con_old", v: 1, w: "ws_xact", t: "x.n", d: {}, m: event(0).metadata }])
      ])
      const storage = yield* PgStorage.make(url)
      const { events } = yield* storage.commit({
        streams: [{ streamId: "con_old", expectedVersion: 1, events: [event(1)] }],
        documents: []
      })
      const ids = yield* xactIds(sql)
      expect(ids.get(1)).toBe(0n)
      expect(ids.get(events[0]!.sequence)).toBeGreaterThan(0n)
    }).pipe(Effect.scoped)
  )
})
