import type { Collection, Commit, DocumentUpsert, NewEvent } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { testDatabase } from "../../../test/support/pg.js"
import { paramsOf } from "./commit.js"
import { commitCall } from "./commitBatches.js"
import { migrate } from "./migrate.js"
import { documentTables, searchWordTables } from "./tables.js"

/**
 * ds_commit_set (functions/ds_commit_set.ts): a batch written set-wise stores exactly what its
 * commits one by one (ds_commit) store, in every table it writes; it refuses (null) what it cannot
 * write set-wise (a removal, a delivery, a settings append, a redaction, a stream twice) and raises,
 * writing nothing, where a version read is stale; and ds_commit_batch then answers each commit on
 * its own, storing what one by one stores.
 */

const AT = "2026-03-01T10:00:00.000Z"

const event = (ws: string, streamId: string, n: number, data: Record<string, unknown> = { n }, type = "contact.created"): NewEvent => ({
  type,
  data: data as NewEvent["data"],
  metadata: { workspaceId: ws, eventId: `evt_${streamId}_${n}`, requestId: null, actor: null }
})

/** A contact created with its document, or a second event on an existing one. */
const contactCommit = (ws: string, id: string, expected: number, key: string | null, settings?: number): Commit => ({
  streams: [{ streamId: id, expectedVersion: expected, events: [event(ws, id, expected + 1)] }],
  documents: [
    {
      _tag: "Upsert",
      collection: "contact",
      workspaceId: ws,
      id,
      version: expected + 1,
      deletedAt: null,
      uniqueKey: key,
      searchWords: ["ann", `w${expected}`],
      data: { id, email: key, n: expected + 1 }
    },
    {
      _tag: "Upsert",
      collection: "company",
      workspaceId: ws,
      id: `comp_${id}`,
      version: expected + 1,
      deletedAt: null,
      uniqueKey: null,
      searchWords: [],
      data: { id: `comp_${id}`, name: "Acme" }
    }
  ],
  ...(settings === undefined ? {} : { settingsRead: [{ workspaceId: ws, version: settings }] })
})

const upsert = (
  ws: string,
  collection: Collection,
  id: string,
  version: number,
  data: Record<string, unknown>,
  searchWords: ReadonlyArray<string> = [],
  deletedAt: string | null = null
): DocumentUpsert => ({
  _tag: "Upsert",
  collection,
  workspaceId: ws,
  id,
  version,
  deletedAt,
  uniqueKey: null,
  searchWords,
  data: { id, ...data } as DocumentUpsert["data"]
})

/** A deal created or changed, with its searched document and a timeline entry, as a stage move writes them. */
const dealCommit = (ws: string, id: string, expected: number, settings?: number): Commit => ({
  streams: [{ streamId: id, expectedVersion: expected, events: [event(ws, id, expected + 1, { n: expected + 1 }, "deal.created")] }],
  documents: [
    upsert(ws, "deal", id, expected + 1, { name: `Pilot ${expected}`, amount: 100 * expected }, ["pilot", `d${expected}`]),
    upsert(ws, "timeline_entry", `tl_${id}_${expected}`, 1, { deal_id: id, to_stage_id: `stage_${expected}` })
  ],
  ...(settings === undefined ? {} : { settingsRead: [{ workspaceId: ws, version: settings }] })
})

/** An activity created, then moved to the trash (a soft delete is an upsert): a collection without search words. */
const activityCommit = (ws: string, id: string, expected: number): Commit => ({
  streams: [{ streamId: id, expectedVersion: expected, events: [event(ws, id, expected + 1, { n: expected + 1 }, "activity.created")] }],
  documents: [upsert(ws, "activity", id, expected + 1, { type: "call", subject: `Call ${expected}` }, [], expected > 0 ? AT : null)]
})

const open = Effect.gen(function* () {
  const url = yield* testDatabase
  const sql = yield* PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 2 }).pipe(
    Effect.provide(Reactivity.layer)
  )
  yield* migrate(sql)
  return sql
})

type Sql = Effect.Success<typeof open>

const json = (value: unknown) => JSON.stringify(value)

const callSet = (sql: Sql, commits: ReadonlyArray<Commit>) =>
  Effect.map(
    sql.unsafe<{ readonly outcomes: unknown }>(`SELECT ds_commit_set($1::jsonb) AS outcomes`, [json(commits.map((c) => paramsOf(c, AT)))]),
    ([row]) => row!.outcomes
  )

const callBatch = (sql: Sql, commits: ReadonlyArray<Commit>) =>
  Effect.map(
    sql.unsafe<{ readonly outcomes: unknown }>(`SELECT ds_commit_batch($1::jsonb) AS outcomes`, [
      json(commits.map((c) => paramsOf(c, AT)))
    ]),
    ([row]) => row!.outcomes as ReadonlyArray<Record<string, unknown>>
  )

const callOne = (sql: Sql, commit: Commit) => sql.unsafe(...commitCall(paramsOf(commit, AT)))

/** Every column a commit writes of a document (a delivery's lease too, which a write of it clears). */
const documentRows = Object.entries(documentTables).map(
  ([collection, table]) =>
    `SELECT '${collection} ' || id || ' ' || version || ' ' || coalesce(deleted_at, '-') || ' ' || coalesce(unique_key, '-') || ' ' || data::text
     || ' ' || search_words::text || ' ' || folded::text${
       collection === "delivery" ? ` || ' ' || coalesce(lease_owner, '-') || ' ' || coalesce(lease_until, '-')` : ""
     } FROM ${table} WHERE workspace_id = $1`
)
const wordRows = Object.entries(searchWordTables).map(
  ([collection, table]) => `SELECT '${collection} word ' || word || ' ' || id FROM ${table} WHERE workspace_id = $1`
)

/**
 * What a workspace holds (streams, events, every document table, the words tables, the settings
 * version), with its ids made relative to it, so two workspaces written alike compare equal.
 */
const stateOf = (sql: Sql, ws: string) =>
  Effect.gen(function* () {
    const strip = (text: string) => text.replaceAll(ws, "WS")
    const rows = yield* sql.unsafe<{ readonly what: string }>(
      [
        `SELECT 'stream ' || stream_id || ' ' || version AS what FROM ds_streams WHERE workspace_id = $1`,
        `SELECT 'event ' || stream_id || ' ' || stream_version || ' ' || type || ' ' || data::text || ' ' || metadata::text || ' ' || recorded_at
           FROM ds_events WHERE workspace_id = $1`,
        ...documentRows,
        ...wordRows,
        `SELECT 'settings ' || version FROM ds_settings_versions WHERE workspace_id = $1`
      ].join(" UNION ALL ") + " ORDER BY 1",
      [ws]
    )
    return rows.map((row) => strip(row.what))
  })

const headOf = (sql: Sql) =>
  Effect.map(sql.unsafe<{ readonly head: number }>(`SELECT coalesce(max(sequence), 0)::int AS head FROM ds_events`), ([row]) => row!.head)

/**
 * How many subtransactions wrote the events appended after `head`: ds_commit_batch runs the
 * set-wise path in one block and each commit of the one-by-one path in a block of its own, and a
 * row carries the id of the (sub)transaction that inserted it.
 */
const writersSince = (sql: Sql, head: number) =>
  Effect.map(
    sql.unsafe<{ readonly writers: number }>(`SELECT count(DISTINCT xmin::text)::int AS writers FROM ds_events WHERE sequence > $1`, [
      head
    ]),
    ([row]) => row!.writers
  )

const sequencesOf = (outcomes: unknown) =>
  (outcomes as ReadonlyArray<{ readonly events: ReadonlyArray<readonly [number, string, number]> }>).map((o) =>
    o.events.map(([sequence]) => sequence)
  )

describe("set-wise group commit", () => {
  it.effect("stores what the commits one by one store, sequences in batch order", () =>
    Effect.gen(function* () {
      const sql = yield* open
      const batch = (ws: string) => [
        contactCommit(ws, `con_a_${ws}`, 0, `a@${ws}`),
        contactCommit(ws, `con_b_${ws}`, 0, null),
        contactCommit(ws, `con_c_${ws}`, 0, `c@${ws}`, 0)
      ]
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
    })
  )

  it.effect("returns null for what it cannot write set-wise, and raises with nothing written on a stale version", () =>
    Effect.gen(function* () {
      const sql = yield* open
      // One stream twice in the batch: the commits must run one after the other.
      expect(yield* callSet(sql, [contactCommit("ws_n", "con_x", 0, null), contactCommit("ws_n", "con_x", 1, null)])).toBeNull()
      const redacting: Commit = { ...contactCommit("ws_n", "con_y", 0, null), redactStreams: ["con_x"] }
      expect(yield* callSet(sql, [redacting, contactCommit("ws_n", "con_z", 0, null)])).toBeNull()
      expect(yield* stateOf(sql, "ws_n")).toEqual([])

      const stale = yield* Effect.result(callSet(sql, [contactCommit("ws_n", "con_p", 0, null), contactCommit("ws_n", "con_q", 3, null)]))
      expect(stale._tag).toBe("Failure")
      const staleSettings = yield* Effect.result(
        callSet(sql, [contactCommit("ws_n", "con_p", 0, null), contactCommit("ws_n", "con_q", 0, null, 4)])
      )
      expect(staleSettings._tag).toBe("Failure")
      expect(yield* stateOf(sql, "ws_n")).toEqual([])
    })
  )

  it.effect("ds_commit_batch answers each commit on its own where the set-wise path cannot write the batch", () =>
    Effect.gen(function* () {
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
    })
  )

  it.effect("stores what the commits one by one store for deals (words, timeline entries) and activities (a trashed one too)", () =>
    Effect.gen(function* () {
      const sql = yield* open
      const batch = (ws: string, expected: number) => [
        dealCommit(ws, `deal_a_${ws}`, expected),
        activityCommit(ws, `act_a_${ws}`, expected),
        dealCommit(ws, `deal_b_${ws}`, expected, 0),
        contactCommit(ws, `con_a_${ws}`, expected, `a@${ws}`)
      ]
      // Created, then a second event on each stream against the stored versions.
      for (const expected of [0, 1]) {
        expect(yield* callSet(sql, batch("ws_set", expected))).not.toBeNull()
        for (const commit of batch("ws_one", expected)) yield* callOne(sql, commit)
        expect(yield* stateOf(sql, "ws_set")).toEqual(yield* stateOf(sql, "ws_one"))
      }
      const set = yield* stateOf(sql, "ws_set")
      const kinds = new Set(set.map((line) => line.split(" ")[0]))
      for (const kind of ["deal", "timeline_entry", "activity"]) expect(kinds).toContain(kind)
      expect(set).toContain("deal word pilot deal_a_WS")
      expect(set.filter((line) => line.startsWith("activity act_a_WS 2 2026-03-01T10:00:00.000Z "))).toHaveLength(1)
    })
  )

  it.effect("falls back to one by one for a removal, a delivery, a settings append and a redaction, storing what one by one stores", () =>
    Effect.gen(function* () {
      const sql = yield* open
      // The measure of which path ran: a batch the set-wise path takes is written by one block.
      const start = yield* headOf(sql)
      yield* callBatch(sql, [
        contactCommit("ws_plain", "con_p", 0, null),
        dealCommit("ws_plain", "deal_p", 0, 0),
        activityCommit("ws_plain", "act_p", 0)
      ])
      expect(yield* writersSince(sql, start)).toBe(1)

      /** What the workspace holds first, the commit the set-wise path must leave alone, and a sign it was stored. */
      const cases: ReadonlyArray<{
        readonly name: string
        readonly before: (ws: string) => ReadonlyArray<Commit>
        readonly commit: (ws: string) => Commit
        readonly stored: (line: string) => boolean
      }> = [
        {
          name: "a document removed",
          before: (ws) => [contactCommit(ws, `con_r_${ws}`, 0, null)],
          commit: (ws) => {
            const changed = contactCommit(ws, `con_r_${ws}`, 1, `r@${ws}`)
            return {
              ...changed,
              documents: [changed.documents[0]!, { _tag: "Remove", collection: "company", workspaceId: ws, id: `comp_con_r_${ws}` }]
            }
          },
          stored: (line) => line.startsWith("contact con_r_WS 2 ")
        },
        {
          name: "a delivery upserted",
          before: () => [],
          commit: (ws) => ({
            streams: [{ streamId: `dlv_${ws}`, expectedVersion: 0, events: [event(ws, `dlv_${ws}`, 1, { n: 1 }, "delivery.scheduled")] }],
            documents: [upsert(ws, "delivery", `dlv_${ws}`, 1, { webhook_id: `wh_${ws}`, status: "pending", next_attempt_at: AT })]
          }),
          stored: (line) => line.startsWith("delivery dlv_WS 1 ")
        },
        {
          name: "a settings stream appended to",
          before: () => [],
          commit: (ws) => ({
            streams: [
              {
                streamId: `cf_${ws}`,
                expectedVersion: 0,
                settings: true,
                events: [event(ws, `cf_${ws}`, 1, { key: "tier" }, "custom_field.created")]
              }
            ],
            documents: [upsert(ws, "custom_field", `cf_${ws}`, 1, { object: "contact", key: "tier" })]
          }),
          stored: (line) => line === "settings 1"
        },
        {
          name: "a stream redacted",
          before: (ws) => [contactCommit(ws, `con_r_${ws}`, 0, null)],
          commit: (ws) => ({ ...contactCommit(ws, `con_s_${ws}`, 0, null), redactStreams: [`con_r_${ws}`] }),
          stored: (line) => line.startsWith('event con_r_WS 1 contact.created {"redacted": true} ')
        }
      ]
      for (const [i, { before, commit, name, stored }] of cases.entries()) {
        const [set, one] = [`ws_${i}_set`, `ws_${i}_one`]
        for (const ws of [set, one]) for (const prior of before(ws)) yield* callOne(sql, prior)
        // The case's commit among commits the set-wise path writes, the settings read by one of them.
        const batch = (ws: string) => [contactCommit(ws, `con_n_${ws}`, 0, `n@${ws}`), commit(ws), dealCommit(ws, `deal_n_${ws}`, 0, 0)]
        const held = yield* stateOf(sql, set)
        expect(yield* callSet(sql, batch(set)), name).toBeNull()
        expect(yield* stateOf(sql, set), `${name}: the set-wise path wrote nothing`).toEqual(held)

        const head = yield* headOf(sql)
        const outcomes = yield* callBatch(sql, batch(set))
        // The rows were written by one block per commit stored: the one-by-one path ran.
        expect(yield* writersSince(sql, head), `${name}: one block per commit`).toBe(
          outcomes.filter((outcome) => "events" in outcome).length
        )
        const answers: Array<unknown> = []
        for (const next of batch(one)) answers.push(Object.values((yield* callOne(sql, next))[0]!)[0])
        // Each answered as alone (after a settings append, the read of the commit behind it is stale).
        const shape = (ws: string) => (outcome: unknown) =>
          "events" in (outcome as object) ? "events" : JSON.stringify(outcome).replaceAll(ws, "WS")
        expect(outcomes.map(shape(set)), name).toEqual(answers.map(shape(one)))
        expect(answers.map(shape(one)).filter((answer) => answer === "events").length, name).toBeGreaterThanOrEqual(2)
        const [batched, oneByOne] = [yield* stateOf(sql, set), yield* stateOf(sql, one)]
        expect(batched, name).toEqual(oneByOne)
        expect(batched.some(stored), `${name}: stored`).toBe(true)
      }
    })
  )
})
