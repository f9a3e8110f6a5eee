import * as Reactivity from "effect/reactivity/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { isDeepStrictEqual } from "node:util"
import { Effect, Exit, Redacted, Scope } from "effect"
import { documentTables } from "../../packages/storage-pg/src/tables.js"
import { run } from "../http/cli.js"

// Checks of a database against its own event log, for the fault suites: what a crash or a lost
// connection could leave half done shows up here as documents that differ from the log's
// projection, a timeline that does not chain, or an announced event without a delivery.

export interface Sql {
  readonly query: <A extends object = Record<string, any>>(statement: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<A>>
  readonly close: () => Promise<void>
}

/** A one-connection client of the test's own (never the host's pool). */
export const openSql = async (url: string): Promise<Sql> => {
  const scope = Effect.runSync(Scope.make())
  const client = await Effect.runPromise(
    Scope.provide(PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }), scope).pipe(
      Effect.provide(Reactivity.layer)
    )
  )
  return {
    query: <A extends object>(statement: string, params: ReadonlyArray<unknown> = []) =>
      Effect.runPromise(client.unsafe<A>(statement, params as Array<unknown>)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** The record events a webhook with `["*"]` is sent (every one of them is announced). */
export const ANNOUNCED_TYPES = [
  "contact.created",
  "contact.updated",
  "contact.deleted",
  "contact.restored",
  "deal.created",
  "deal.updated",
  "deal.stage_changed",
  "deal.deleted",
  "deal.restored"
] as const

export interface LoggedEvent {
  readonly sequence: number
  readonly stream_id: string
  readonly stream_version: number
  readonly type: string
  readonly data: Record<string, any>
  readonly event_id: string
}

/** Every event of the log, in log order. */
export const eventLog = async (sql: Sql): Promise<ReadonlyArray<LoggedEvent>> =>
  (
    await sql.query<LoggedEvent & { sequence: string }>(
      `SELECT sequence::text AS sequence, stream_id, stream_version, type, data, metadata ->> 'eventId' AS event_id
     FROM ds_events ORDER BY ds_events.sequence`
    )
  ).map((row) => ({ ...row, sequence: Number(row.sequence) }))

const PROJECTED = [documentTables.contact, documentTables.deal, documentTables.timeline_entry, documentTables.pipeline] as const

/** The projected document tables, every column, in a stable order. */
export const projectedDocuments = async (sql: Sql): Promise<Record<string, ReadonlyArray<unknown>>> => {
  const tables: Record<string, ReadonlyArray<unknown>> = {}
  for (const table of PROJECTED) tables[table] = await sql.query(`SELECT * FROM ${table} ORDER BY workspace_id, id`)
  return tables
}

/**
 * Runs `dealstream rebuild` (the built CLI) on the database, with no host running, and returns the
 * projected documents before and after: equal when every document is exactly its events' projection.
 */
export const rebuildComparison = async (sql: Sql, databaseUrl: string) => {
  const before = await projectedDocuments(sql)
  const rebuilt = run(["rebuild", "--storage", "postgres"], { DATABASE_URL: databaseUrl })
  const code = await rebuilt.exit
  if (code !== 0) throw new Error(`dealstream rebuild exited ${code}: ${rebuilt.stderr()}`)
  return { before, after: await projectedDocuments(sql), summary: rebuilt.stdout().trim() }
}

/**
 * Every way a deal's timeline can disagree with its log, as sentences (none when all is well):
 * one entry per stage_changed event, equal to it, in log order; entries chain from the stage the
 * deal was created in, never stay in place, never go back in time, and end at the deal's stage.
 */
export const timelineProblems = async (sql: Sql, events: ReadonlyArray<LoggedEvent>): Promise<Array<string>> => {
  const problems: Array<string> = []
  const deals = new Map(
    (await sql.query<{ id: string; data: Record<string, any> }>(`SELECT id, data FROM ${documentTables.deal}`)).map((row) => [
      row.id,
      row.data
    ])
  )
  const entries = new Map(
    (await sql.query<{ id: string; data: Record<string, any> }>(`SELECT id, data FROM ${documentTables.timeline_entry}`)).map((row) => [
      row.id,
      row.data
    ])
  )
  const streams = new Map<string, Array<LoggedEvent>>()
  for (const event of events) {
    if (!event.stream_id.startsWith("deal_")) continue
    streams.set(event.stream_id, [...(streams.get(event.stream_id) ?? []), event])
  }
  const seen = new Set<string>()
  for (const [dealId, stream] of streams) {
    const created = stream[0]
    if (created?.type !== "deal.created") {
      problems.push(`${dealId}: the stream starts with ${created?.type}`)
      continue
    }
    const deal = deals.get(dealId)
    if (deal === undefined) {
      problems.push(`${dealId}: events but no document`)
      continue
    }
    let stage = created.data["fields"]["stage_id"]
    let at = ""
    for (const event of stream) {
      if (event.type !== "deal.stage_changed") continue
      const id = event.data["entry_id"]
      seen.add(id)
      const entry = entries.get(id)
      if (entry === undefined) {
        problems.push(`${dealId}: no timeline entry for the move ${id}`)
        continue
      }
      const expected = {
        id,
        deal_id: dealId,
        from_stage_id: event.data["from_stage_id"],
        to_stage_id: event.data["to_stage_id"],
        reason: event.data["reason"],
        // The statuses a move leaves and enters (deals close by their stage, 0e84c58); null before them.
        from_status: event.data["from_status"] ?? null,
        to_status: event.data["to_status"] ?? null,
        changed_at: event.data["at"]
      }
      if (!isDeepStrictEqual(entry, expected))
        problems.push(`${dealId}: entry ${JSON.stringify(entry)} is not its event ${JSON.stringify(expected)}`)
      if (entry["from_stage_id"] !== stage)
        problems.push(`${dealId}: entry ${id} starts at ${entry["from_stage_id"]}, the deal was at ${stage}`)
      if (entry["from_stage_id"] === entry["to_stage_id"]) problems.push(`${dealId}: entry ${id} stays in ${entry["to_stage_id"]}`)
      if (entry["changed_at"] < at) problems.push(`${dealId}: entry ${id} at ${entry["changed_at"]} is earlier than the one before (${at})`)
      stage = entry["to_stage_id"]
      at = entry["changed_at"]
    }
    if (deal["stage_id"] !== stage) problems.push(`${dealId}: the deal is in ${deal["stage_id"]}, its timeline ends in ${stage}`)
  }
  for (const [id, entry] of entries) {
    if (!seen.has(id)) problems.push(`timeline entry ${id} of ${entry["deal_id"]} has no stage_changed event`)
  }
  return problems
}

/** Live records per kind, from the log alone: created − deleted + restored. */
export const liveFromLog = (events: ReadonlyArray<LoggedEvent>, kind: "contact" | "deal") => {
  let live = 0
  for (const event of events) {
    if (event.type === `${kind}.created` || event.type === `${kind}.restored`) live++
    if (event.type === `${kind}.deleted`) live--
  }
  return live
}

/**
 * The delivery queue's LISTEN connections of hosts on this database (listenChannel.ts names them
 * `dealstream-listen`), with when each connected: a worker that hears other hosts' signals has one.
 * A host's engine listens for settings changes on a second connection, `dealstream-listen-settings`,
 * not counted here. A listening connection's last statement is its LISTEN or, 5 s on, the heartbeat
 * it sends itself through that connection once LISTEN is in place (listenChannel.ts): a check that
 * looked for LISTEN alone missed a listener it polled too late, under load.
 */
export const listenConnections = (sql: Sql) =>
  sql.query<{ pid: number; backend_start: Date }>(
    `SELECT pid, backend_start FROM pg_stat_activity
     WHERE application_name = 'dealstream-listen' AND (query LIKE 'LISTEN %' OR query LIKE '%pg_notify(%')
       AND datname = current_database()`
  )
