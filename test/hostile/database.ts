import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Exit, Redacted, Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { documentTables, tables } from "../../packages/storage-pg/src/tables.js"

/**
 * What the host has stored, read straight from its database: the log's length and head, every
 * stream's version, and a digest of every document (its version, deletion and data). The delivery
 * queue's lease columns are left out: they are the worker's bookkeeping, not state.
 */
export interface Snapshot {
  readonly events: string
  readonly head: string
  readonly streams: string
  readonly documents: Readonly<Record<string, string>>
}

export interface Database {
  readonly snapshot: () => Promise<Snapshot>
  /**
   * Work the host still does in the background, in every workspace: deliveries waiting to be sent
   * (or retried), and webhooks whose recovery job still runs (it schedules deliveries as it goes).
   */
  readonly pendingWork: () => Promise<number>
  /** Rows of an arbitrary query, for assertions that need more than a snapshot. */
  readonly query: <A extends object>(statement: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<A>>
  readonly close: () => Promise<void>
}

const digest = (table: string) =>
  `(SELECT md5(coalesce(string_agg(workspace_id || ':' || id || ':' || version || ':' || coalesce(deleted_at, '-') || ':' || md5(data::text), ',' ORDER BY workspace_id, id), '')) FROM ${table})`

const snapshotSql = `SELECT
  (SELECT count(*) FROM ${tables.events})::text AS events,
  (SELECT coalesce(max(sequence), 0) FROM ${tables.events})::text AS head,
  (SELECT md5(coalesce(string_agg(stream_id || ':' || version, ',' ORDER BY stream_id), '')) FROM ${tables.streams}) AS streams,
  ${Object.entries(documentTables)
    .map(([collection, table]) => `${digest(table)} AS "${collection}"`)
    .join(",\n  ")}`

export const openDatabase = async (url: string): Promise<Database> => {
  const scope = Effect.runSync(Scope.make())
  const sql = await Effect.runPromise(
    Scope.provide(PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }), scope).pipe(
      Effect.provide(Reactivity.layer)
    )
  )
  const query = <A extends object>(statement: string, params: ReadonlyArray<unknown> = []) =>
    Effect.runPromise(sql.unsafe<A>(statement, params as Array<unknown>))
  return {
    query,
    snapshot: async () => {
      const [row] = await query<Record<string, string>>(snapshotSql)
      const { events, head, streams, ...documents } = row!
      return { events: events!, head: head!, streams: streams!, documents }
    },
    pendingWork: async () => {
      const [row] = await query<{ pending: string }>(
        `SELECT ((SELECT count(*) FROM ${documentTables.delivery} WHERE data ->> 'status' = 'pending') + ` +
          `(SELECT count(*) FROM ${documentTables.webhook} WHERE deleted_at IS NULL AND data ? 'recovery'))::text AS pending`
      )
      return Number(row!.pending)
    },
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
