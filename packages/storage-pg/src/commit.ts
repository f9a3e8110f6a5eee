import {
  type Commit,
  type CommitResult,
  type DocumentRemove,
  type DocumentUpsert,
  ProjectionFailed,
  type StoredEvent,
  UniqueViolation,
  VersionConflict
} from "@dealstream/core"
import { Effect, Result } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { CommitParams, SubmitCommit } from "./commitBatches.js"
import { inlineParams } from "./inlineParams.js"
import { upsertRecord } from "./internal/documentRow.js"
import { serverError, sqlStateOf } from "./internal/sqlState.js"
import type { DocumentTableMap } from "./documentTableMap.js"
import { tables } from "./tables.js"

/**
 * A commit is one call of `ds_commit` (functions/ds_commit.ts), alone or in a batch with other
 * commits (commitBatches.ts, functions/ds_commit_batch.ts): a single statement, so atomic without BEGIN/COMMIT round trips,
 * whose inner statements PostgreSQL plans once per connection. A commit that reads settings or
 * moves them on calls `ds_commit_with_settings` (functions/ds_commit_with_settings.ts) instead,
 * which checks the settings versions read the same way before calling ds_commit. ds_commit marks
 * the workspaces' feeds (internal/feedLock.ts), locks the streams' version rows, compares them with
 * the expected versions and writes nothing but reports the first mismatch; otherwise it redacts,
 * bumps the versions, appends the events and writes the documents. Two races end in an error that
 * undoes the call: two commits creating the same stream (23505 on ds_streams' key, a version
 * conflict), and a unique key held by another document (23505 on the table's unique index, a
 * unique violation). Each function's text is its file's: migrate.ts applies it when it changes.
 */

/** One write per document, the last one, in commit order: as when writes are applied one by one. */
const lastWrites = (commit: Commit) => {
  const last = new Map<string, Commit["documents"][number]>()
  for (const write of commit.documents) {
    const slot = `${write.collection}\u0000${write.workspaceId}\u0000${write.id}`
    last.delete(slot)
    last.set(slot, write)
  }
  const writes = [...last.values()]
  return {
    removes: writes.filter((w): w is DocumentRemove => w._tag === "Remove"),
    upserts: writes.filter((w): w is DocumentUpsert => w._tag === "Upsert")
  }
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

/** What ds_commit (and each item of ds_commit_batch) is given for a commit. */
/**
 * The workspace of each stream, by its first new event; a stream the commit only checks (no new
 * event) is taken to be of the commit's workspace, the first one its events or documents name.
 * ds_commit finds a stream's version row by both: on Citus, the workspace says which worker.
 */
const streamWorkspaces = (commit: Commit): ReadonlyArray<string> => {
  const fallback =
    commit.streams.find((s) => s.events.length > 0)?.events[0]?.metadata.workspaceId ?? commit.documents[0]?.workspaceId ?? ""
  return commit.streams.map((s) => s.events[0]?.metadata.workspaceId ?? fallback)
}

export const paramsOf = (commit: Commit, recordedAt: string): CommitParams => {
  const workspaces = streamWorkspaces(commit)
  const streams = commit.streams.map((s, i) => ({
    i,
    id: s.streamId,
    w: workspaces[i]!,
    expected: s.expectedVersion,
    added: s.events.length,
    ...(s.settings === true ? { settings: true } : {})
  }))
  const settingsRead = (commit.settingsRead ?? []).map((read, i) => ({ i, w: read.workspaceId, v: read.version }))
  const touchesSettings = settingsRead.length > 0 || commit.streams.some((s) => s.settings === true && s.events.length > 0)
  const events = commit.streams
    .flatMap((s) =>
      s.events.map((event, j) => ({
        s: s.streamId,
        v: s.expectedVersion + j + 1,
        w: event.metadata.workspaceId,
        t: event.type,
        d: event.data,
        m: event.metadata
      }))
    )
    .map((event, i) => ({ i, ...event }))
  const { removes, upserts } = lastWrites(commit)
  return {
    s: streams,
    e: events,
    r: [...(commit.redactStreams ?? [])],
    d: removes.map((r) => ({ c: r.collection, w: r.workspaceId, id: r.id })),
    u: upserts.map((u, i) => ({ c: u.collection, ...upsertRecord(u, i) })),
    at: recordedAt,
    ...(touchesSettings ? { q: settingsRead } : {})
  }
}

const conflictFromLog = (sql: SqlClient, commit: Commit) =>
  Effect.map(
    sql.unsafe<{ readonly stream_id: string; readonly version: number }>(
      `SELECT stream_id, version FROM ${tables.streams} WHERE workspace_id = ANY($1::text[]) AND stream_id = ANY($2::text[])`,
      [[...new Set(streamWorkspaces(commit))], commit.streams.map((s) => s.streamId)]
    ),
    (rows) => {
      const actual = new Map(rows.map((row) => [row.stream_id, row.version]))
      const stale = commit.streams.find((s) => (actual.get(s.streamId) ?? 0) !== s.expectedVersion) ?? commit.streams[0]
      return new VersionConflict({
        streamId: stale?.streamId ?? "",
        expectedVersion: stale?.expectedVersion ?? 0,
        actualVersion: stale === undefined ? 0 : (actual.get(stale.streamId) ?? 0)
      })
    }
  )

/** Who holds the key the unique index refused; null when it has been released since. */
const holderOf = (sql: SqlClient, tableMap: DocumentTableMap, commit: Commit, table: string) => {
  const claims = lastWrites(commit).upserts.filter((write) => tableMap.table(write.collection) === table && write.uniqueKey !== null)
  const touched = new Set(commit.documents.map((w) => `${w.collection}\u0000${w.workspaceId}\u0000${w.id}`))
  return Effect.map(
    sql.unsafe<{ readonly workspace_id: string; readonly unique_key: string; readonly id: string }>(
      // Pairs are matched below: as plain lists, Citus reads only the shards of those workspaces.
      `SELECT workspace_id, unique_key, id FROM ${table} WHERE workspace_id = ANY($1::text[]) AND unique_key = ANY($2::text[])`,
      [[...new Set(claims.map((c) => c.workspaceId))], [...new Set(claims.map((c) => c.uniqueKey))]]
    ),
    (rows) => {
      for (const outsider of [true, false]) {
        for (const claim of claims) {
          const holder = rows.find(
            (row) =>
              row.workspace_id === claim.workspaceId &&
              row.unique_key === claim.uniqueKey &&
              row.id !== claim.id &&
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

export const commit =
  (sql: SqlClient, submit: SubmitCommit, tableMap: DocumentTableMap) =>
  (commit: Commit, recordedAt: string): Effect.Effect<CommitResult, VersionConflict | UniqueViolation | ProjectionFailed | SqlError> =>
    Effect.suspend(() => {
      // A document of a collection without a table is the caller's defect, found before anything is
      // sent (ds_commit would refuse it as an error like any other, a CASE without its branch).
      for (const write of commit.documents) tableMap.table(write.collection)
      const twice = claimedTwice(commit)
      if (twice !== null) return Effect.fail(twice)
      const inline = inlineParams(commit)
      if (Result.isFailure(inline)) return Effect.fail(inline.failure)
      const params = inline.success === undefined ? paramsOf(commit, recordedAt) : { ...paramsOf(commit, recordedAt), x: inline.success }

      const attempt = (n: number): Effect.Effect<CommitResult, VersionConflict | UniqueViolation | ProjectionFailed | SqlError> =>
        submit(params).pipe(
          Effect.flatMap((outcome): Effect.Effect<CommitResult, VersionConflict | ProjectionFailed | SqlError> => {
            if ("conflict" in outcome) {
              const [streamId, expectedVersion, actualVersion] = outcome.conflict
              return Effect.fail(new VersionConflict({ streamId, expectedVersion, actualVersion }))
            }
            const projection = "error" in outcome ? outcome.error.projection : undefined
            if ("error" in outcome && projection !== undefined && projection !== null) {
              return Effect.fail(
                new ProjectionFailed({ projection, message: `inline projection ${projection} failed: ${outcome.error.message}` })
              )
            }
            // Undone alone inside a batch: its SQLSTATE and constraint say why, as a thrown error's would.
            if ("error" in outcome) return Effect.fail(serverError(outcome.error))
            return Effect.succeed(resultOf(commit, outcome.events, recordedAt))
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
            return Effect.flatMap(holderOf(sql, tableMap, commit, table), (violation) =>
              violation !== null
                ? Effect.fail(violation)
                : // The holder let go of the key between the refusal and the look-up: try again.
                  n < MAX_ATTEMPTS
                  ? attempt(n + 1)
                  : Effect.fail(error)
            )
          })
        )
      return attempt(1)
    })

const resultOf = (commit: Commit, appended: ReadonlyArray<readonly [number, string, number]>, recordedAt: string): CommitResult => {
  const sequences = new Map<string, number>()
  for (const [sequence, streamId, version] of appended) sequences.set(`${streamId}\u0000${version}`, sequence)
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
