import type { DuplicateCollection, DuplicateKey } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { nodesOf, type PlanNode } from "../../../test/support/planNodes.js"
import { testSqlLayer } from "../../../test/support/pg.js"
import { duplicatePageQuery } from "./duplicates.js"

/**
 * A page of duplicates (issue 28, item 5: "an index per rule, kept in the commit, not a scan") reads
 * a range of the groups' partial index and, per group, a range of the keys' primary key: never a
 * sequential scan of the keys, the groups or the documents, whatever the plan (the custom plan of
 * the first executions and the generic plan a prepared statement settles on). The documents are
 * written by plain INSERTs, so migration 0031's triggers fill the keys as a commit would.
 */

const CONTACTS = 40_000
const COMPANIES = 8_000
const ws = "ws_dups"

const Sql = PgClient.PgClient

// One contact in 20 shares its phone with another, every 50th is deleted; one company in 40
// shares its name; a tenth of each in other workspaces.
const seed = (sql: SqlClient) =>
  Effect.gen(function* () {
    yield* sql.unsafe(`
      INSERT INTO ds_contacts (workspace_id, id, version, deleted_at, data, folded)
      SELECT CASE WHEN n % 10 = 0 THEN 'ws_other_' || (n % 7) ELSE '${ws}' END,
             'con_' || lpad(n::text, 8, '0'), 1,
             CASE WHEN n % 50 = 0 THEN '2026-01-01T00:00:00.000Z' END,
             jsonb_build_object(
               'id', 'con_' || lpad(n::text, 8, '0'),
               'email', 'user' || n || '@example.com',
               'phone', '+1 555 ' || lpad((n % ${CONTACTS - CONTACTS / 20})::text, 7, '0'),
               'first_name', 'Ann', 'last_name', 'L' || n),
             jsonb_build_object('first_name', 'ann', 'last_name', 'l' || n)
      FROM generate_series(1, ${CONTACTS}) AS n`)
    yield* sql.unsafe(`
      INSERT INTO ds_companies (workspace_id, id, version, deleted_at, data, folded)
      SELECT CASE WHEN n % 10 = 0 THEN 'ws_other_' || (n % 7) ELSE '${ws}' END,
             'com_' || lpad(n::text, 8, '0'), 1, NULL,
             jsonb_build_object('id', 'com_' || lpad(n::text, 8, '0'), 'name', 'firm ' || (n % ${COMPANIES - COMPANIES / 40}),
               'domain', 'firm' || n || '.example'),
             '{}'::jsonb
      FROM generate_series(1, ${COMPANIES}) AS n`)
    for (const table of ["ds_contacts", "ds_companies"]) {
      yield* sql.unsafe(`ANALYZE ${table}`)
      yield* sql.unsafe(`ANALYZE ${table}_duplicate_keys`)
      yield* sql.unsafe(`ANALYZE ${table}_duplicate_groups`)
    }
  })

const summary = (plan: PlanNode) => {
  const nodes = nodesOf(plan)
  return {
    seqScans: nodes.filter((n) => n["Node Type"] === "Seq Scan").map((n) => n["Relation Name"]),
    indexes: [...new Set(nodes.flatMap((n) => (n["Index Name"] === undefined ? [] : [n["Index Name"]])))].sort(),
    removedByFilter: nodes.reduce((sum, n) => sum + (n["Rows Removed by Filter"] ?? 0), 0)
  }
}

type Plans = { readonly custom: ReturnType<typeof summary>; readonly generic: ReturnType<typeof summary>; readonly rows: number }

/** The page's plan as run with its parameters, and the generic plan of the same statement prepared. */
const plans = (collection: DuplicateCollection, after: DuplicateKey | null) =>
  Effect.gen(function* () {
    const sql = yield* Sql
    const query = duplicatePageQuery(collection, ws, after, 26)
    const [custom] = yield* sql.unsafe<{ readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }> }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${query.text}`,
      query.params
    )
    const [{ rows }] = (yield* sql.unsafe<{ readonly rows: number }>(
      `SELECT count(*)::int AS rows FROM (${query.text}) AS page`,
      query.params
    )) as unknown as [{ readonly rows: number }]
    const literal = (value: string | number) => (typeof value === "number" ? String(value) : `'${value.replaceAll("'", "''")}'`)
    const generic = yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql.unsafe("SET LOCAL plan_cache_mode = force_generic_plan")
        yield* sql.unsafe(`PREPARE duplicate_page (text, text, text, int) AS ${query.text}`)
        const [row] = yield* sql.unsafe<{ readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }> }>(
          `EXPLAIN (FORMAT JSON) EXECUTE duplicate_page (${query.params.map(literal).join(", ")})`
        )
        yield* sql.unsafe("DEALLOCATE duplicate_page")
        return row!
      })
    )
    return {
      custom: summary(custom!["QUERY PLAN"][0]!.Plan),
      generic: summary(generic["QUERY PLAN"][0]!.Plan),
      rows
    } satisfies Plans
  })

describe(`duplicate pages on ${CONTACTS.toLocaleString("en-US")} contacts and ${COMPANIES.toLocaleString("en-US")} companies`, () => {
  it.layer(testSqlLayer, { timeout: 120_000 })((it) => {
    it.effect(
      "read the groups' partial index and the keys' primary key, never a sequential scan",
      () =>
        Effect.gen(function* () {
          yield* seed(yield* Sql)
          const cases: ReadonlyArray<readonly [string, DuplicateCollection, DuplicateKey | null]> = [
            ["contacts, first page", "contact", null],
            ["contacts, a page after a cursor", "contact", { rule: "phone", key: "15550001000" }],
            ["companies, first page", "company", null],
            ["companies, a page after a cursor", "company", { rule: "name", key: "firm 100" }]
          ]
          for (const [name, collection, after] of cases) {
            const table = collection === "contact" ? "ds_contacts" : "ds_companies"
            const found = yield* plans(collection, after)
            // A full page: the seed holds more groups than one page after each cursor.
            expect({ name, rows: found.rows }).toEqual({ name, rows: 26 })
            for (const plan of [found.custom, found.generic]) {
              expect({ name, seqScans: plan.seqScans }).toEqual({ name, seqScans: [] })
              expect({ name, indexes: plan.indexes }).toEqual({
                name,
                indexes: [`${table}_duplicate_groups_shared`, `${table}_duplicate_keys_pkey`]
              })
            }
            // The page reads its own groups, not the workspace's keys held once.
            expect(found.custom.removedByFilter, name).toBeLessThanOrEqual(100)
          }
        }),
      120_000
    )
  })
})
