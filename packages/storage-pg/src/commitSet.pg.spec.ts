import type { Commit, NewEvent } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { testDatabase } from "../../../test/support/pg.js"
import { paramsOf } from "./commit.js"
import { migrate } from "./migrate.js"

/**
 * ds_commit_set (migration 0016): a batch written set-wise stores exactly what its commits one by one
 * (ds_commit) store; it refuses (null) what it cannot write set-wise and raises, writing nothing,
 * where a version read is stale; and ds_commit_batch then answers each commit on its own.
 */

const AT = "2026-03-01T10:00:00.000Z"

const event = (ws: string, streamId: string, n: number, data: Record<string, unknown> = { n }): NewEvent => ({
  type: "contact.created",
  data: data as NewEvent["data"],
  metadata: { workspaceId: ws, eventId: `evt_${streamId}_${n}`, requestId: null, actor: null }
})

/** A contact created with its document, or a second event on an existing one. */
const contactCommit = (ws: string, id: string, expected: number, key: string | null, settings?: number): Commit => ({
  streams: [{ streamId: id, expectedVersion: expected, events: [event(ws, id, expected + 1)] }],
  documents: [{
    _tag: "Upsert",
    collection: "contact",
    workspaceId: ws,
    id,
    version: expected + 1,
    deletedAt: null,
    uniqueKey: key,
    searchWords: ["ann", `w${expected}`],
    data: { id, email: key, n: expected + 1 }
  }, {
    _tag: "Upsert",
    collection: "company",
    workspaceId: ws,
    id: `comp_${id}`,
    version: expected + 1,
    deletedAt: null,
    uniqueKey: null,
    searchWords: [],
    data: { id: `comp_${id}`, name: "Acme" }
  }],
  ...(settings === undefined ? {} : { settingsRead: [{ workspaceId: ws, version: settings }] })
})

const open = Effect.gen(function*() {
  const url = yield* testDatabase
  const sql = yield* PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 2 }).pipe(Effect.provide(Reactivity.layer))
  yield* migrate(sql)
  return sql
})

type Sql = Effect.Success<typeof open>

const json = (value: unknown) => JSON.stringify(value)

const callSet = (sql: Sql, commits: ReadonlyArray<Commit>) =>
  Effect.map(sql.unsafe<{ readonly outcomes: unknown }>(`SELECT ds_commit_set($1::jsonb) AS outcomes`, [json(commits.map((c) => paramsOf(c, AT)))]), ([row]) => row!.outcomes)

const callBatch = (sql: Sql, commits: ReadonlyArray<Commit>) =>
  Effect.map(sql.unsafe<{ readonly outcomes: unknown }>(`SELECT ds_commit_batch($1::jsonb) AS outcomes`, [json(commits.map((c) => paramsOf(c, AT)))]), ([row]) => row!.outcomes as ReadonlyArray<Record<string, unknown>>)

const callOne = (sql: Sql, commit: Commit) => {
  const p = paramsOf(commit, AT)
  return p.q === undefined
    ? sql.unsafe(`SELECT ds_commit($1::jsonb, $2::jsonb, $3::text[], $4::jsonb, $5::jsonb, $6::timestamptz)`, [json(p.s), json(p.e), [...p.r], json(p.d), json(p.u), p.at])
    : sql.unsafe(`SELECT ds_commit_with_settings($1::jsonb, $2::jsonb, $3::text[], $4::jsonb, $5::jsonb, $6::timestamptz, $7::jsonb)`, [json(p.s), json(p.e), [...p.r], json(p.d), json(p.u), p.at, json(p.q)])
}

/** What a workspace holds, with its ids made relative to it, so two workspaces written alike compare equal. */
const stateOf = (sql: Sql, ws: string) =>
  Effect.gen(function*() {
    const strip = (text: string) => text.replaceAll(ws, "WS")
    const rows = yield* sql.unsafe<{ readonly what: string }>(
      `SELECT 'stream ' || stream_id || ' ' || version AS what FROM ds_streams WHERE workspace_id = $1
       UNION ALL SELECT 'event ' || stream_id || ' ' || stream_version || ' ' || type || ' ' || data::text || ' ' || metadata::text || ' ' || recorded_at
         FROM ds_events WHERE workspace_id = $1
       UNION ALL SELECT 'contact ' || id || ' ' || version || ' ' || coalesce(unique_key, '-') || ' ' || data::text || ' ' || search_words::text
         FROM ds_contacts WHERE workspace_id = $1
       UNION ALL SELECT 'word ' || word || ' ' || id FROM ds_contacts_words WHERE workspace_id = $1
       UNION ALL SELECT 'company ' || id || ' ' || version || ' ' || data::text FROM ds_companies WHERE workspace_id = $1
       ORDER BY 1`,
      [ws]
    )
    return rows.map((row) => strip(row.what))
  })

const sequencesOf = (outcomes: unknown) =>
  (outcomes as ReadonlyArray<{ readonly events: ReadonlyArray<readonly [number, string, number]> }>).map((o) => o.events.map(([sequence]) => sequence))

describe("set-wise group commit", () => {
  it.effect("stores what the commits one by one store, sequences in batch order", () =>
    Effect.gen(function*() {
      const sql = yield* open
      const batch = (ws: string) => [contactCommit(ws, `con_a_${ws}`, 0, `a@${ws}`), contactCommit(ws, `con_b_${ws}`, 0, null), contactCommit(ws, `con_c_${ws}`, 0, `c@${ws}`, 0)]
      const outcomes = yield* callSet(sql, batch("ws_set"))
      expect(outcomes).not.toBeNull()
      const sequences = sequencesOf(outcomes).flat()
      expect(sequences).toHaveLength(3)
      expect([...sequences].sort((a, b) => a - b)).toEqual(sequences)
      for (const commit of batch("ws_one")) yield* callOne(sql, commit)
      const [set, one] = [yield* stateOf(sql, "ws_set"), yield* stateOf(sql, "ws_one")]
      expect(set.length).toBeGreaterThan(10)
      expect(set).toEqual(one)
      // A second event on each stream, set-wise again, against the stored versions.
      const next = (ws: string) => [contactCommit(ws, `con_a_${ws}`, 1, `a@${ws}`), contactCommit(ws, `con_b_${ws}`, 1, `b@${ws}`)]
      expect(yield* callSet(sql, next("ws_set"))).not.toBeNull()
      for (const commit of next("ws_one")) yield* callOne(sql, commit)
      expect(yield* stateOf(sql, "ws_set")).toEqual(yield* stateOf(sql, "ws_one"))
    }))

  it.effect("returns null for what it cannot write set-wise, and raises with nothing written on a stale version", () =>
    Effect.gen(function*() {
      const sql = yield* open
      // One stream twice in the batch: the commits must run one after the other.
      expect(yield* callSet(sql, [contactCommit("ws_n", "con_x", 0, null), contactCommit("ws_n", "con_x", 1, null)])).toBeNull()
      const redacting: Commit = { ...contactCommit("ws_n", "con_y", 0, null), redactStreams: ["con_x"] }
      expect(yield* callSet(sql, [redacting, contactCommit("ws_n", "con_z", 0, null)])).toBeNull()
      expect(yield* stateOf(sql, "ws_n")).toEqual([])

      const stale = yield* Effect.result(callSet(sql, [contactCommit("ws_n", "con_p", 0, null), contactCommit("ws_n", "con_q", 3, null)]))
      expect(stale._tag).toBe("Failure")
      const staleSettings = yield* Effect.result(callSet(sql, [contactCommit("ws_n", "con_p", 0, null), contactCommit("ws_n", "con_q", 0, null, 4)]))
      expect(staleSettings._tag).toBe("Failure")
      expect(yield* stateOf(sql, "ws_n")).toEqual([])
    }))

  it.effect("ds_commit_batch answers each commit on its own where the set-wise path cannot write the batch", () =>
    Effect.gen(function*() {
      const sql = yield* open
      yield* callOne(sql, contactCommit("ws_b", "con_held", 0, "held@x.io"))
      const outcomes = yield* callBatch(sql, [
        contactCommit("ws_b", "con_1", 0, "one@x.io"),
        contactCommit("ws_b", "con_2", 5, null),
        contactCommit("ws_b", "con_3", 0, "held@x.io"),
        contactCommit("ws_b", "con_4", 0, null)
      ])
      expect(outcomes[0]).toHaveProperty("events")
      expect(outcomes[1]).toEqual({ conflict: ["con_2", 5, 0] })
      expect(outcomes[2]).toMatchObject({ error: { code: "23505", constraint: "ds_contacts_unique_key" } })
      expect(outcomes[3]).toHaveProperty("events")
      const state = yield* stateOf(sql, "ws_b")
      expect(state.filter((line) => line.startsWith("stream "))).toEqual(["stream con_1 1", "stream con_4 1", "stream con_held 1"])
    }))
})
