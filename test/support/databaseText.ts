import * as PgClient from "@effect/sql-pg/PgClient"
import * as Reactivity from "effect/reactivity/Reactivity"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { Effect, Redacted } from "effect"

/**
 * Everything a PostgreSQL database holds, as one text to search (for a value that must be gone from
 * it, a person erased say), and how it was read:
 *
 * - `pg_dump`: a whole dump (schema and data) by a pg_dump of the server's own major version, when
 *   one is installed (Debian's 15 for CI's PostgreSQL 15 pass);
 * - `every row`: otherwise (the embedded PostgreSQL 18 comes without pg_dump, and pg_dump 15 refuses
 *   a newer server), every row of every table of every schema but the system's, each as JSON text:
 *   what a data dump holds, column by column.
 */
export interface DatabaseText {
  readonly text: string
  readonly how: string
}

const run = promisify(execFile)

const client = (url: string) =>
  PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

const query = <A extends object>(url: string, text: string) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(client(url), (sql) => sql.unsafe<A>(text))).pipe(Effect.orDie))

/**
 * A pg_dump of the server's major version, if one is installed: the embedded server (PostgreSQL 18)
 * comes without one, and Debian's pg_dump 15 refuses a newer server.
 */
export const pgDumpFor = async (url: string): Promise<string | undefined> => {
  const [row] = await query<{ readonly major: number }>(url, `SELECT current_setting('server_version_num')::int / 10000 AS major`)
  const major = row?.major
  for (const candidate of [`/usr/lib/postgresql/${major}/bin/pg_dump`, "pg_dump"]) {
    const version = await run(candidate, ["--version"]).then(
      ({ stdout }) => stdout,
      () => ""
    )
    if (version.includes(`(PostgreSQL) ${major}.`)) return candidate
  }
  return undefined
}

const everyRow = async (url: string): Promise<string> => {
  const tables = await query<{ readonly schema: string; readonly name: string }>(
    url,
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`
  )
  const parts: Array<string> = []
  for (const { name, schema } of tables) {
    const rows = await query<{ readonly row: string }>(url, `SELECT row_to_json(t)::text AS row FROM "${schema}"."${name}" t`)
    parts.push(`-- ${schema}.${name}`, ...rows.map((r) => r.row))
  }
  return parts.join("\n")
}

export const databaseText = async (url: string): Promise<DatabaseText> => {
  const pgDump = await pgDumpFor(url)
  if (pgDump === undefined) return { text: await everyRow(url), how: "every row of every table (no pg_dump of the server's version here)" }
  const { stdout } = await run(pgDump, ["--no-owner", "--dbname", url], { maxBuffer: 512 * 1024 * 1024 })
  return { text: stdout, how: pgDump }
}
