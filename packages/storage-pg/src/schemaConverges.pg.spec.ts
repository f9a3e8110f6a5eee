import { execFile } from "node:child_process"
import { promisify } from "node:util"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import { pgDumpFor } from "../../../test/support/databaseText.js"
import { emptyDatabase, serverUrl } from "../../../test/support/pg.js"
import { functions } from "./functions/index.js"
import { migrate, type Schema, schema } from "./migrate.js"
import { migration as storedFunctions } from "./migrations/0018_stored_functions.js"
import { DUPLICATE_FUNCTIONS } from "./migrations/0031_duplicate_keys.js"
import { type Migration, migrations } from "./migrations/index.js"

/**
 * A fresh install and installs upgraded from earlier states end with the same schema: the same
 * relations, columns, indexes, constraints, triggers and extensions, and the same text of every
 * function, which are exactly the files' functions (functions/), one each. So no function is left
 * behind by a migration that its file no longer defines, and no path skips a function's text.
 *
 * Compared as the catalog tells it (pg_get_functiondef, pg_get_indexdef, …), on any server the
 * tests run on; and, where a pg_dump of the server's own major version is installed, as its
 * `--schema-only` dump too, in case the catalog queries miss a kind of object. The embedded server
 * (PostgreSQL 18) comes without pg_dump, and Debian's pg_dump 15 cannot dump an 18 server.
 */

const client = (url: string) =>
  PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

const own = `to_regnamespace(current_schema())`
/** Not a member of an extension (btree_gin's functions sit in the same schema). */
const notExtension = (classTable: string, oid: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_depend AS x WHERE x.classid = '${classTable}'::regclass AND x.objid = ${oid} AND x.deptype = 'e')`

const catalogQueries = [
  `SELECT format('relation %s %s %s', c.relname, c.relkind, c.relpersistence) FROM pg_class AS c
    WHERE c.relnamespace = ${own} AND ${notExtension("pg_class", "c.oid")}`,
  `SELECT format('column %s.%s %s %s %s collate %s default %s identity %s generated %s', c.relname, a.attnum, a.attname,
      format_type(a.atttypid, a.atttypmod), CASE WHEN a.attnotnull THEN 'not null' ELSE 'null' END, a.attcollation::regcollation,
      pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated)
    FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = ${own} AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped`,
  `SELECT pg_get_indexdef(i.indexrelid) FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid WHERE c.relnamespace = ${own}`,
  `SELECT format('constraint %s on %s: %s', conname, conrelid::regclass, pg_get_constraintdef(oid)) FROM pg_constraint
    WHERE connamespace = ${own}`,
  `SELECT format('%s enabled %s', pg_get_triggerdef(t.oid), t.tgenabled) FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
    WHERE NOT t.tgisinternal AND c.relnamespace = ${own}`,
  `SELECT format('sequence %s %s %s %s %s %s %s', sequencename, data_type, start_value, increment_by, min_value, max_value, cycle)
    FROM pg_sequences WHERE schemaname = current_schema()`,
  `SELECT format('extension %s %s in %s', extname, extversion, extnamespace::regnamespace) FROM pg_extension`,
  `SELECT pg_get_functiondef(p.oid) FROM pg_proc AS p WHERE p.pronamespace = ${own} AND ${notExtension("pg_proc", "p.oid")}`,
  `SELECT format('migration %s %s', id, name) FROM ds_migrations`,
  `SELECT format('function recorded %s %s', name, hash) FROM ds_functions`
]

/** The schema, one line per object, sorted. */
const catalogOf = (sql: SqlClient) =>
  Effect.map(
    Effect.forEach(catalogQueries, (query) => sql.unsafe<{ readonly line: string }>(`SELECT q.line FROM (${query}) AS q(line) ORDER BY 1`)),
    (parts) => parts.flat().map((row) => row.line)
  )

const ownFunctionNames = (sql: SqlClient) =>
  Effect.map(
    sql.unsafe<{ readonly name: string }>(
      `SELECT p.proname AS name FROM pg_proc AS p WHERE p.pronamespace = ${own} AND ${notExtension("pg_proc", "p.oid")} ORDER BY 1`
    ),
    (rows) => rows.map((row) => row.name)
  )

const upTo = (id: number): ReadonlyArray<Migration> => migrations.filter((m) => m.id <= id)

/** Each install: the migrates that make it, one after the other, each on the result of the last. */
const installs: ReadonlyArray<readonly [string, ReadonlyArray<Schema>]> = [
  ["fresh", [schema]],
  ["upgraded from migration 1, no function applied", [{ migrations: upTo(1) }, schema]],
  ["upgraded from migration 17 (a database before stored functions)", [{ migrations: upTo(17) }, schema]],
  // Every state a database could have been left in by a host: a restated function in a later
  // migration would leave the one-at-a-time install with the migration's text under the file's hash.
  [
    "upgraded one migration at a time",
    migrations.map((m) => (m.id < storedFunctions.id ? { migrations: upTo(m.id) } : { migrations: upTo(m.id), functions }))
  ]
]

const install = (steps: ReadonlyArray<Schema>) =>
  Effect.gen(function* () {
    const url = yield* emptyDatabase
    const sql = yield* client(url)
    for (const step of steps) yield* migrate(sql, step)
    return { url, sql }
  })

const run = promisify(execFile)

const pgDump = await pgDumpFor(serverUrl())

/** The schema-only dump, without the lines that differ on every run (pg_dump's \restrict key). */
const dumpOf = (pgDumpPath: string, url: string) =>
  Effect.promise(() =>
    run(pgDumpPath, ["--schema-only", "--no-owner", "--dbname", url], { maxBuffer: 64 * 1024 * 1024 }).then(({ stdout }) =>
      stdout
        .split("\n")
        .filter((line) => !/^\\(un)?restrict /.test(line))
        .join("\n")
    )
  )

describe("the schema, however it was reached", () => {
  it.live(
    "a fresh install and every upgraded one end with the same catalog, and its functions are the files'",
    () =>
      Effect.gen(function* () {
        const [fresh, ...upgraded] = yield* Effect.forEach(installs, ([name, steps]) =>
          Effect.map(install(steps), ({ sql }) => ({ name, sql }))
        )
        const expected = yield* catalogOf(fresh!.sql)
        for (const { name, sql } of upgraded) expect(yield* catalogOf(sql), name).toEqual(expected)
        expect(yield* ownFunctionNames(fresh!.sql)).toEqual([...functions.map((f) => f.name), ...DUPLICATE_FUNCTIONS].sort())
      }).pipe(Effect.scoped),
    120_000
  )

  it.live.runIf(pgDump !== undefined)(
    `and the same pg_dump --schema-only (${pgDump ?? "no pg_dump of the server's version here"})`,
    () =>
      Effect.gen(function* () {
        const [fresh, ...upgraded] = yield* Effect.forEach(installs, ([name, steps]) =>
          Effect.map(install(steps), ({ url }) => ({ name, url }))
        )
        const expected = yield* dumpOf(pgDump!, fresh!.url)
        expect(expected).toContain("CREATE FUNCTION public.ds_commit(")
        for (const { name, url } of upgraded) expect(yield* dumpOf(pgDump!, url), name).toEqual(expected)
      }).pipe(Effect.scoped),
    120_000
  )
})
