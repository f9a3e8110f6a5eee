import {
  type Collection,
  type Commit,
  type CommitResult,
  type DocumentRemove,
  type DocumentUpsert,
  type StoredEvent,
  UniqueViolation,
  VersionConflict
} from "@dealstream/core"
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { upsertRecord, upsertSql } from "./internal/documentRow.js"
import { Params } from "./internal/params.js"
import { sqlStateOf } from "./internal/sqlState.js"
import { collections, documentTables, tables } from "./tables.js"

/**
 * A commit is ONE statement, so it is atomic without BEGIN/COMMIT round trips:
 *
 * 1. `current` locks the streams' version rows (in id order, so two commits touching the same
 *    streams cannot deadlock) and `checked` compares them with the expected versions;
 * 2. only if every version matches: bump or create the ds_streams rows, append the events, redact
 *    the earlier events of purged streams, delete and upsert documents.
 *
 * Every write is conditioned on `checked.ok`, so a stale version writes nothing and the statement
 * reports the conflict. Two races end in an error instead, which rolls the statement back: two
 * commits creating the same stream both see no row and the second insert hits ds_streams' key
 * (23505, a version conflict), and a unique key taken by another document hits the unique index
 * (23505, a unique violation). All CTEs share one snapshot, so the redaction only ever sees the
 * stream's earlier events, never the tombstone appended beside it.
 */

interface Row {
  readonly ok: boolean
  /** [streamId, expected, actual] of the first stream whose version did not match. */
  readonly conflict: readonly [string, number, number] | null
  /** [sequence, streamId, streamVersion] of each appended event. */
  readonly events: ReadonlyArray<readonly [number | string, string, number]> | null
}

interface TableWrites {
  readonly table: string
  readonly removes: Array<DocumentRemove>
  readonly upserts: Array<DocumentUpsert>
}

/** The last write of each document wins, as when the writes are applied one after another. */
const groupWrites = (commit: Commit): ReadonlyArray<TableWrites> => {
  const last = new Map<string, Commit["documents"][number]>()
  for (const write of commit.documents) {
    const slot = `${write.collection}\u0000${write.workspaceId}\u0000${write.id}`
    last.delete(slot)
    last.set(slot, write)
  }
  const byCollection = new Map<Collection, TableWrites>()
  for (const write of last.values()) {
    let writes = byCollection.get(write.collection)
    if (writes === undefined) {
      writes = { table: documentTables[write.collection], removes: [], upserts: [] }
      byCollection.set(write.collection, writes)
    }
    if (write._tag === "Remove") writes.removes.push(write)
    else writes.upserts.push(write)
  }
  return collections.flatMap((c) => byCollection.get(c) ?? [])
}

/** Two documents of one commit claiming one key: the storage's unique index would say the same. */
const claimedTwice = (commit: Commit): UniqueViolation | null => {
  const claimed = new Map<string, string>()
  for (const write of commit.documents) {
    if (write._tag !== "Upsert" || write.uniqueKey === null) continue
    const slot = `${write.collection}\u0000${write.workspaceId}\u0000${write.uniqueKey}`
    const holder = claimed.get(slot)
    if (holder !== undefined && holder !== write.id) {
      return new UniqueViolation({ collection: write.collection, uniqueKey: write.uniqueKey, existingId: holder })
    }
    claimed.set(slot, write.id)
  }
  return null
}

const statementOf = (commit: Commit, recordedAt: string) => {
  const params = new Params()
  const ctes: Array<string> = []
  const streams = commit.streams
  let appends = false
  if (streams.length === 0) {
    ctes.push(`checked AS (SELECT true AS ok, NULL::json AS conflict)`)
  } else {
    const ids = params.add(streams.map((s) => s.streamId))
    ctes.push(
      `appends AS (SELECT * FROM unnest(${ids}::text[], ${params.add(streams.map((s) => s.events[0]?.metadata.workspaceId ?? ""))}::text[], ` +
        `${params.add(streams.map((s) => s.expectedVersion))}::int[], ${params.add(streams.map((s) => s.events.length))}::int[]) ` +
        `AS a(stream_id, workspace_id, expected, added))`,
      `current AS (SELECT stream_id, version FROM ${tables.streams} WHERE stream_id = ANY(${ids}::text[]) ORDER BY stream_id FOR UPDATE)`,
      `checked AS (SELECT coalesce(bool_and(coalesce(c.version, 0) = a.expected), true) AS ok, ` +
        `(array_agg(json_build_array(a.stream_id, a.expected, coalesce(c.version, 0))) ` +
        `FILTER (WHERE coalesce(c.version, 0) <> a.expected))[1] AS conflict ` +
        `FROM appends a LEFT JOIN current c ON c.stream_id = a.stream_id)`,
      `bumped AS (UPDATE ${tables.streams} s SET version = a.expected + a.added FROM appends a, checked k ` +
        `WHERE k.ok AND a.added > 0 AND a.expected > 0 AND s.stream_id = a.stream_id)`,
      `created AS (INSERT INTO ${tables.streams} (stream_id, workspace_id, version) ` +
        `SELECT a.stream_id, a.workspace_id, a.added FROM appends a, checked k WHERE k.ok AND a.added > 0 AND a.expected = 0)`
    )
    const events = streams.flatMap((s) =>
      s.events.map((event, j) => ({
        s: s.streamId,
        v: s.expectedVersion + j + 1,
        w: event.metadata.workspaceId,
        t: event.type,
        d: event.data,
        m: event.metadata
      }))
    )
    if (events.length > 0) {
      appends = true
      ctes.push(
        `appended AS (INSERT INTO ${tables.events} (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at) ` +
          `SELECT e.s, e.v, e.w, e.t, e.d, e.m, ${params.add(recordedAt)}::timestamptz ` +
          `FROM jsonb_to_recordset(${params.add(JSON.stringify(events.map((e, i) => ({ i, ...e }))))}::jsonb) ` +
          `AS e(i int, s text, v int, w text, t text, d jsonb, m jsonb), checked k WHERE k.ok ORDER BY e.i ` +
          `RETURNING sequence, stream_id, stream_version)`
      )
    }
  }
  const redact = commit.redactStreams ?? []
  if (redact.length > 0) {
    ctes.push(
      `redacted AS (UPDATE ${tables.events} SET data = '{"redacted": true}'::jsonb FROM checked k ` +
        `WHERE k.ok AND stream_id = ANY(${params.add(redact)}::text[]))`
    )
  }
  groupWrites(commit).forEach(({ removes, table, upserts }, n) => {
    // Deletes run first (the upsert waits on their count), so a key freed by a removal is free.
    let after = ""
    if (removes.length > 0) {
      ctes.push(
        `removed_${n} AS (DELETE FROM ${table} t USING unnest(${params.add(removes.map((r) => r.workspaceId))}::text[], ` +
          `${params.add(removes.map((r) => r.id))}::text[]) AS r(w, id), checked k ` +
          `WHERE k.ok AND t.workspace_id = r.w AND t.id = r.id RETURNING 1)`
      )
      after = ` AND (SELECT count(*) FROM removed_${n}) >= 0`
    }
    if (upserts.length > 0) {
      const records = params.add(JSON.stringify(upserts.map(upsertRecord)))
      ctes.push(`upserted_${n} AS (${upsertSql(table, records, `k.ok${after}`, ", checked k")})`)
    }
  })
  const events = appends
    ? "(SELECT json_agg(json_build_array(sequence, stream_id, stream_version)) FROM appended)"
    : "NULL::json"
  return {
    text: `WITH ${ctes.join(",\n")}\nSELECT k.ok, k.conflict, ${events} AS events FROM checked k`,
    params: params.values
  }
}

const conflictFromLog = (sql: SqlClient, commit: Commit) =>
  Effect.map(
    sql.unsafe<{ readonly stream_id: string; readonly version: number }>(
      `SELECT stream_id, version FROM ${tables.streams} WHERE stream_id = ANY($1::text[])`,
      [commit.streams.map((s) => s.streamId)]
    ),
    (rows) => {
      const actual = new Map(rows.map((row) => [row.stream_id, row.version]))
      const stale = commit.streams.find((s) => (actual.get(s.streamId) ?? 0) !== s.expectedVersion) ?? commit.streams[0]
      return new VersionConflict({
        streamId: stale?.streamId ?? "",
        expectedVersion: stale?.expectedVersion ?? 0,
        actualVersion: stale === undefined ? 0 : actual.get(stale.streamId) ?? 0
      })
    }
  )

/** Who holds the key the unique index refused; null when it has been released since. */
const holderOf = (sql: SqlClient, commit: Commit, table: string) => {
  const claims = groupWrites(commit).flatMap((writes) => writes.table === table ? writes.upserts : [])
    .filter((write) => write.uniqueKey !== null)
  const touched = new Set(commit.documents.map((w) => `${w.collection}\u0000${w.workspaceId}\u0000${w.id}`))
  return Effect.map(
    sql.unsafe<{ readonly workspace_id: string; readonly unique_key: string; readonly id: string }>(
      `SELECT workspace_id, unique_key, id FROM ${table} ` +
        `WHERE (workspace_id, unique_key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [claims.map((c) => c.workspaceId), claims.map((c) => c.uniqueKey)]
    ),
    (rows) => {
      for (const outsider of [true, false]) {
        for (const claim of claims) {
          const holder = rows.find((row) =>
            row.workspace_id === claim.workspaceId && row.unique_key === claim.uniqueKey && row.id !== claim.id &&
            touched.has(`${claim.collection}\u0000${row.workspace_id}\u0000${row.id}`) !== outsider
          )
          if (holder !== undefined) {
            return new UniqueViolation({ collection: claim.collection, uniqueKey: holder.unique_key, existingId: holder.id })
          }
        }
      }
      return null
    }
  )
}

const MAX_ATTEMPTS = 3

export const commit = (sql: SqlClient) =>
(commit: Commit, recordedAt: string): Effect.Effect<CommitResult, VersionConflict | UniqueViolation | SqlError> => {
  const twice = claimedTwice(commit)
  if (twice !== null) return Effect.fail(twice)
  const { params, text } = statementOf(commit, recordedAt)

  const attempt = (n: number): Effect.Effect<CommitResult, VersionConflict | UniqueViolation | SqlError> =>
    sql.unsafe<Row>(text, params).pipe(
      Effect.flatMap(([row]) => {
        if (row === undefined || !row.ok) {
          const [streamId, expectedVersion, actualVersion] = row?.conflict ?? ["", 0, 0]
          return Effect.fail(new VersionConflict({ streamId, expectedVersion, actualVersion }))
        }
        return Effect.succeed(resultOf(commit, row, recordedAt))
      }),
      Effect.catchTag("SqlError", (error) => {
        const { code, constraint } = sqlStateOf(error)
        // A deadlock or serialization failure is a lost race, like a stale version: retry the command.
        if (code === "40P01" || code === "40001") return Effect.flatMap(conflictFromLog(sql, commit), Effect.fail)
        if (code !== "23505") return Effect.fail(error)
        if (constraint === "ds_streams_pkey" || constraint === "ds_events_stream_version") {
          return Effect.flatMap(conflictFromLog(sql, commit), Effect.fail)
        }
        const table = constraint?.endsWith("_unique_key") === true ? constraint.slice(0, -"_unique_key".length) : null
        if (table === null) return Effect.fail(error)
        return Effect.flatMap(holderOf(sql, commit, table), (violation) =>
          violation !== null
            ? Effect.fail(violation)
            // The holder let go of the key between the refusal and the look-up: try again.
            : n < MAX_ATTEMPTS
            ? attempt(n + 1)
            : Effect.fail(error))
      })
    )
  return attempt(1)
}

const resultOf = (commit: Commit, row: Row, recordedAt: string): CommitResult => {
  const sequences = new Map<string, number>()
  for (const [sequence, streamId, version] of row.events ?? []) sequences.set(`${streamId}\u0000${version}`, Number(sequence))
  const events: Array<StoredEvent> = []
  for (const append of commit.streams) {
    append.events.forEach((event, j) => {
      const streamVersion = append.expectedVersion + j + 1
      events.push({
        ...event,
        sequence: sequences.get(`${append.streamId}\u0000${streamVersion}`) ?? 0,
        streamId: append.streamId,
        streamVersion,
        recordedAt
      })
    })
  }
  return { events }
}
