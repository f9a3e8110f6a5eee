import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import { emptyDatabase } from "../../../test/support/pg.js"
import { DUPLICATE_FUNCTIONS } from "./migrations/0031_duplicate_keys.js"
import { functions } from "./functions/index.js"
import { migrate, schema } from "./migrate.js"
import { migrations } from "./migrations/index.js"

/**
 * migrate applies a stored function's file when its text changed, or the function is missing, and
 * leaves every other function untouched: its catalog row keeps its version (xmin, which CREATE OR
 * REPLACE renews even for the same text).
 */

const client = (url: string) =>
  PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

/** Each function of the schema (not btree_gin's): its catalog row's version and its definition. */
const catalog = (sql: SqlClient) =>
  Effect.map(
    sql.unsafe<{ readonly name: string; readonly xmin: string; readonly definition: string }>(
      `SELECT p.proname AS name, p.xmin::text AS xmin, pg_get_functiondef(p.oid) AS definition FROM pg_proc AS p
      WHERE p.pronamespace = to_regnamespace(current_schema())
        AND NOT EXISTS (SELECT 1 FROM pg_depend AS x WHERE x.classid = 'pg_proc'::regclass AND x.objid = p.oid AND x.deptype = 'e')`
    ),
    (rows) => new Map(rows.map((row) => [row.name, row]))
  )

const withChanged = (name: string) => ({
  ...schema,
  functions: functions.map((f) => (f.name === name ? { ...f, text: f.text.replace("BEGIN", "BEGIN\n      -- a changed text") } : f))
})

const migrated = Effect.gen(function* () {
  const sql = yield* client(yield* emptyDatabase)
  yield* migrate(sql)
  return sql
})

describe("stored functions", () => {
  it.live("a function whose file changed is replaced, and no other is touched", () =>
    Effect.gen(function* () {
      const sql = yield* migrated
      const before = yield* catalog(sql)
      expect([...before.keys()].sort()).toEqual([...functions.map((f) => f.name), ...DUPLICATE_FUNCTIONS].sort())

      expect(yield* migrate(sql, withChanged("ds_commit"))).toEqual({ migrations: [], functions: ["ds_commit"] })
      const after = yield* catalog(sql)
      expect(after.get("ds_commit")!.definition).toContain("-- a changed text")
      expect(after.get("ds_commit")!.xmin).not.toBe(before.get("ds_commit")!.xmin)
      expect(new Map([...after].filter(([name]) => name !== "ds_commit"))).toEqual(
        new Map([...before].filter(([name]) => name !== "ds_commit"))
      )

      // The same files again: nothing to do.
      expect(yield* migrate(sql, withChanged("ds_commit"))).toEqual({ migrations: [], functions: [] })
      expect(yield* catalog(sql)).toEqual(after)

      // And back to the text as it was.
      expect(yield* migrate(sql)).toEqual({ migrations: [], functions: ["ds_commit"] })
      expect((yield* catalog(sql)).get("ds_commit")!.definition).toBe(before.get("ds_commit")!.definition)
    }).pipe(Effect.scoped)
  )

  it.live("a function dropped behind migrate's back is created again", () =>
    Effect.gen(function* () {
      const sql = yield* migrated
      yield* sql.unsafe(`DROP FUNCTION ds_commit_set(jsonb)`)
      expect(yield* migrate(sql)).toEqual({ migrations: [], functions: ["ds_commit_set"] })
      expect((yield* catalog(sql)).has("ds_commit_set")).toBe(true)
    }).pipe(Effect.scoped)
  )

  it.live("a function the files no longer have is forgotten, and applied again when it comes back", () =>
    Effect.gen(function* () {
      const sql = yield* migrated
      yield* migrate(sql, { ...schema, functions: functions.filter((f) => f.name !== "ds_commit_set") })
      const recorded = yield* sql.unsafe<{ readonly name: string }>(`SELECT name FROM ds_functions ORDER BY name`)
      expect(recorded.map((row) => row.name)).not.toContain("ds_commit_set")
      expect(yield* migrate(sql)).toEqual({ migrations: [], functions: ["ds_commit_set"] })
    }).pipe(Effect.scoped)
  )

  it.live("a host that does not know every migration of the database leaves the functions as they are", () =>
    Effect.gen(function* () {
      const sql = yield* migrated
      const before = yield* catalog(sql)
      const older = { migrations: migrations.slice(0, -1), functions: withChanged("ds_commit").functions }
      expect(yield* migrate(sql, older)).toEqual({ migrations: [], functions: [] })
      expect(yield* catalog(sql)).toEqual(before)
    }).pipe(Effect.scoped)
  )
})
