import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import pg from "pg"
import { describe, expect, inject, it } from "vitest"
import { documentTableMap } from "../../packages/storage-pg/src/documentTableMap.js"
import { migrate, schemaOf } from "../../packages/storage-pg/src/migrate.js"
import { note } from "../plugins/note/note.js"
import { citusDatabaseOn, dropCitusDatabase } from "../support/citusCluster.js"

// Issue 31, item 1: migrate on a Citus coordinator distributes every table that holds a workspace
// by workspace_id, colocated with the log, and leaves the bookkeeping on the coordinator.

const migrated = (url: string, withNotes = false) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }), (sql) =>
        migrate(sql, schemaOf(documentTableMap(withNotes ? [note] : [])))
      )
    ).pipe(Effect.provide(Reactivity.layer))
  )

const rows = async <A>(url: string, statement: string): Promise<ReadonlyArray<A>> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(statement)).rows as Array<A>
  } finally {
    await client.end()
  }
}

interface Placement {
  readonly table: string
  readonly workspaced: boolean
  readonly colocation: number | null
  readonly method: string | null
}

const placements = (url: string) =>
  rows<Placement>(
    url,
    `SELECT c.relname AS table,
       EXISTS (SELECT 1 FROM pg_attribute AS a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped) AS workspaced,
       d.colocationid AS colocation, d.partmethod::text AS method
     FROM pg_class AS c LEFT JOIN pg_dist_partition AS d ON d.logicalrelid = c.oid
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') ORDER BY 1`
  )

describe("migrate on a Citus cluster (a coordinator and two workers)", () => {
  const ports = inject("citusPorts")
  const cluster = { createDatabase: () => citusDatabaseOn(ports), dropDatabase: (url: string) => dropCitusDatabase(ports, url), ports }

  it("distributes every table that holds a workspace by workspace_id, colocated, and nothing else", async () => {
    const url = await cluster.createDatabase()
    await migrated(url)
    const tables = await placements(url)
    const workspaced = tables.filter((table) => table.workspaced)
    expect(workspaced.map((table) => table.table)).toContain("ds_events")
    expect(workspaced.map((table) => table.table)).toContain("ds_contacts_words")
    const log = tables.find((table) => table.table === "ds_events")!
    expect(log.method).toBe("h")
    for (const table of workspaced)
      expect({ table: table.table, colocation: table.colocation }).toEqual({ table: table.table, colocation: log.colocation })
    for (const table of tables.filter((table) => !table.workspaced))
      expect({ table: table.table, method: table.method }).toEqual({ table: table.table, method: null })
    // Every key names the workspace first, so a key lookup is one worker's.
    const keys = await rows<{ readonly name: string; readonly definition: string }>(
      url,
      `SELECT k.conname AS name, pg_get_constraintdef(k.oid) AS definition FROM pg_constraint AS k
       JOIN pg_dist_partition AS d ON d.logicalrelid = k.conrelid WHERE k.contype IN ('p', 'u') ORDER BY 1`
    )
    expect(keys.length).toBeGreaterThan(workspaced.length - 1)
    for (const key of keys) expect(key.definition).toMatch(/^(PRIMARY KEY|UNIQUE) \(workspace_id[,)]/)
    // The shards are spread over both workers.
    const workers = await rows<{ readonly port: number }>(
      url,
      "SELECT DISTINCT nodeport AS port FROM citus_shards WHERE table_name = 'ds_events'::regclass ORDER BY 1"
    )
    expect(workers.map((worker) => worker.port)).toEqual([...cluster.ports.slice(1)].sort((a, b) => a - b))
    await cluster.dropDatabase(url)
  })

  it("distributes what a later migrate adds (a plug-in's table), and a second migrate changes nothing", async () => {
    const url = await cluster.createDatabase()
    await migrated(url)
    const before = await rows<{ readonly n: string }>(url, "SELECT count(*) AS n FROM pg_dist_shard")
    await migrated(url)
    expect(await rows<{ readonly n: string }>(url, "SELECT count(*) AS n FROM pg_dist_shard")).toEqual(before)
    await migrated(url, true)
    const notes = (await placements(url)).find((table) => table.table === "ds_test_notes")
    const log = (await placements(url)).find((table) => table.table === "ds_events")
    expect(notes).toMatchObject({ workspaced: true, method: "h", colocation: log?.colocation })
    await cluster.dropDatabase(url)
  })
})
