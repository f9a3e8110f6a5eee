import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import { citusDatabase } from "../../../test/support/citusDatabase.js"
import { emptyDatabase, onCitus } from "../../../test/support/pg.js"
import { migrate, schema } from "./migrate.js"
import { migration as linkedCompanies } from "./migrations/0032_duplicate_keys_of_linked_companies.js"
import { migrations } from "./migrations/index.js"

/**
 * Migration 0032 on a database that 0031's rule already filled: a contact written before contacts
 * stored `company_ids` (its `company_id` free text) held a `name_company` key under that text, and
 * the groups counted it. After the migration the keys and counts are those of the linked companies
 * only (core's duplicateKeys, contact/companyLinks.ts's linkedCompanyIds), and later writes keep
 * them so. On the `citus` project the database is a Citus one, distributed by the first migrate, so
 * the migration's statements run on distributed tables.
 */

const client = (url: string) =>
  PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

const insertContact = (sql: SqlClient, workspaceId: string, id: string, data: unknown, deletedAt: string | null = null) =>
  sql.unsafe(`INSERT INTO ds_contacts (workspace_id, id, version, deleted_at, data) VALUES ($1, $2, 1, $3, $4::jsonb)`, [
    workspaceId,
    id,
    deletedAt,
    JSON.stringify(data)
  ])

const keysOf = (sql: SqlClient) =>
  Effect.map(
    sql.unsafe<{ readonly line: string }>(
      `SELECT q.line FROM (SELECT format('%s %s %s: %s', workspace_id, rule, key, id) FROM ds_contacts_duplicate_keys) AS q(line)
      ORDER BY q.line COLLATE "C"`
    ),
    (rows) => rows.map((row) => row.line)
  )

const groupsOf = (sql: SqlClient) =>
  Effect.map(
    sql.unsafe<{ readonly line: string }>(
      `SELECT q.line FROM (SELECT format('%s %s %s: %s', workspace_id, rule, key, n) FROM ds_contacts_duplicate_groups) AS q(line)
      ORDER BY q.line COLLATE "C"`
    ),
    (rows) => rows.map((row) => row.line)
  )

const name = { first_name: "ann", last_name: "lee" }

describe("migration 0032: contacts of before hold no name_company key", () => {
  it.live(
    "the keys and counts 0031 stored are set right, and later writes keep them",
    () =>
      Effect.gen(function* () {
        const sql = yield* client(yield* onCitus() ? citusDatabase : emptyDatabase)
        yield* migrate(sql, { ...schema, migrations: migrations.filter((m) => m.id < linkedCompanies.id) })
        if (onCitus()) {
          const distributed = yield* sql.unsafe<{ readonly n: number }>(
            `SELECT count(*)::integer AS n FROM pg_dist_partition
            WHERE logicalrelid IN ('ds_contacts'::regclass, 'ds_contacts_duplicate_keys'::regclass, 'ds_contacts_duplicate_groups'::regclass)`
          )
          expect(distributed[0]?.n).toBe(3)
        }
        // Contacts of before (no company_ids array), and contacts linking companies.
        yield* insertContact(sql, "ws_a", "con_b1", { ...name, company_id: "Acme Inc", phone: "555 010 7777" })
        yield* insertContact(sql, "ws_a", "con_b2", { ...name, company_id: "Acme Inc" })
        yield* insertContact(sql, "ws_a", "con_b3", { ...name, company_id: "comp_1", company_ids: null })
        yield* insertContact(sql, "ws_a", "con_b4", { ...name, company_id: "Acme Inc" }, "2026-01-01T00:00:00.000Z")
        yield* insertContact(sql, "ws_a", "con_b5", { first_name: "cy", company_id: "Solo Co" })
        yield* insertContact(sql, "ws_a", "con_l1", { ...name, company_id: "comp_1", company_ids: ["comp_1"] })
        yield* insertContact(sql, "ws_a", "con_l2", { ...name, company_id: null, company_ids: ["comp_1", "comp_2"] })
        yield* insertContact(sql, "ws_b", "con_b1", { ...name, company_id: "Acme Inc", phone: "555 010 7777" })
        yield* insertContact(sql, "ws_b", "con_b2", { ...name, company_id: "Acme Inc", phone: "555-010-7777" })
        // 0031's rule: the text of company_id taken as a company.
        expect(yield* groupsOf(sql)).toEqual([
          "ws_a name_company Acme Inc ann lee: 2",
          "ws_a name_company Solo Co cy : 1",
          "ws_a name_company comp_1 ann lee: 3",
          "ws_a name_company comp_2 ann lee: 1",
          "ws_a phone 5550107777: 1",
          "ws_b name_company Acme Inc ann lee: 2",
          "ws_b phone 5550107777: 2"
        ])

        yield* migrate(sql, schema)
        const linkedKeys = [
          "ws_a name_company comp_1 ann lee: con_l1",
          "ws_a name_company comp_1 ann lee: con_l2",
          "ws_a name_company comp_2 ann lee: con_l2"
        ]
        expect(yield* keysOf(sql)).toEqual([
          ...linkedKeys,
          "ws_a phone 5550107777: con_b1",
          "ws_b phone 5550107777: con_b1",
          "ws_b phone 5550107777: con_b2"
        ])
        const groups = [
          "ws_a name_company comp_1 ann lee: 2",
          "ws_a name_company comp_2 ann lee: 1",
          "ws_a phone 5550107777: 1",
          "ws_b phone 5550107777: 2"
        ]
        expect(yield* groupsOf(sql)).toEqual(groups)

        // Writes after it: a contact of before, written or edited, holds no such key.
        yield* insertContact(sql, "ws_a", "con_b6", { ...name, company_id: "Acme Inc" })
        yield* sql.unsafe(`UPDATE ds_contacts SET data = data || '{"title": "CEO"}' WHERE workspace_id = 'ws_a' AND id = 'con_b2'`)
        yield* sql.unsafe(`UPDATE ds_contacts SET deleted_at = NULL WHERE workspace_id = 'ws_a' AND id = 'con_b4'`)
        expect(yield* groupsOf(sql)).toEqual(groups)
        // Given company_ids, it links them; a contact losing its array links none.
        yield* sql.unsafe(
          `UPDATE ds_contacts SET data = data || '{"company_ids": ["comp_1"]}' WHERE workspace_id = 'ws_a' AND id = 'con_b2'`
        )
        yield* sql.unsafe(`UPDATE ds_contacts SET data = data - 'company_ids' WHERE workspace_id = 'ws_a' AND id = 'con_l2'`)
        expect(yield* keysOf(sql)).toEqual([
          "ws_a name_company comp_1 ann lee: con_b2",
          "ws_a name_company comp_1 ann lee: con_l1",
          "ws_a phone 5550107777: con_b1",
          "ws_b phone 5550107777: con_b1",
          "ws_b phone 5550107777: con_b2"
        ])
        expect(yield* groupsOf(sql)).toEqual([
          "ws_a name_company comp_1 ann lee: 2",
          "ws_a phone 5550107777: 1",
          "ws_b phone 5550107777: 2"
        ])
      }).pipe(Effect.scoped),
    120_000
  )
})
