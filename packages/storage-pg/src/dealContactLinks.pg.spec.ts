import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import { emptyDatabase } from "../../../test/support/pg.js"
import { migrate, schema } from "./migrate.js"
import { migration as dealContactLinks } from "./migrations/0026_deal_contact_links.js"
import { migrations } from "./migrations/index.js"
import { tables } from "./tables.js"

/**
 * The table of links from contacts to the live deals naming them (migration 0026): filled from the
 * deals already stored when the migration runs, then kept by ds_deals' triggers through every kind
 * of write, whoever makes it. The engine's association property (test/engine/associations.ts) reads
 * it through contacts' deal_ids; here the rows themselves, including shapes no engine write makes.
 */

const client = (url: string) =>
  PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

const links = (sql: SqlClient) =>
  Effect.map(
    sql.unsafe<{ readonly w: string; readonly c: string; readonly d: string }>(
      `SELECT workspace_id AS w, contact_id AS c, deal_id AS d FROM ${tables.dealContacts} ORDER BY 1, 2, 3`
    ),
    (rows) => rows.map((row) => `${row.w} ${row.c} ${row.d}`)
  )

const insertDeal = (sql: SqlClient, workspaceId: string, id: string, data: unknown, deletedAt: string | null = null) =>
  sql.unsafe(`INSERT INTO ds_deals (workspace_id, id, version, deleted_at, data) VALUES ($1, $2, 1, $3, $4::jsonb)`, [
    workspaceId,
    id,
    deletedAt,
    JSON.stringify(data)
  ])

describe("ds_deal_contacts", () => {
  it.live(
    "holds exactly the contact_ids strings of the live deals: after the migration's fill, and through every write",
    () =>
      Effect.gen(function* () {
        const sql = yield* client(yield* emptyDatabase)
        yield* migrate(sql, { migrations: migrations.filter((m) => m.id < dealContactLinks.id) })
        yield* insertDeal(sql, "ws_a", "deal_1", { contact_ids: ["con_a", "con_b", "con_a"] })
        yield* insertDeal(sql, "ws_a", "deal_2", { contact_ids: ["con_a"] }, "2026-01-01T00:00:00.000Z")
        yield* insertDeal(sql, "ws_a", "deal_3", { contact_ids: { con_a: true } })
        yield* insertDeal(sql, "ws_a", "deal_4", { contact_ids: ["con_c", 5, null, ["con_d"]] })
        yield* insertDeal(sql, "ws_b", "deal_5", { contact_ids: ["con_a"] })
        yield* insertDeal(sql, "ws_b", "deal_6", {})
        yield* migrate(sql, schema)
        const filled = ["ws_a con_a deal_1", "ws_a con_b deal_1", "ws_a con_c deal_4", "ws_b con_a deal_5"]
        expect(yield* links(sql)).toEqual(filled)

        // A write that leaves contact_ids and deleted_at alone (a stage move) changes nothing.
        yield* sql.unsafe(`UPDATE ds_deals SET data = data || '{"stage_id": "stg_2"}', version = 2 WHERE id = 'deal_1'`)
        expect(yield* links(sql)).toEqual(filled)

        yield* sql.unsafe(`UPDATE ds_deals SET data = jsonb_set(data, '{contact_ids}', '["con_b", "con_e"]') WHERE id = 'deal_1'`)
        yield* sql.unsafe(`UPDATE ds_deals SET deleted_at = NULL WHERE id = 'deal_2'`)
        yield* sql.unsafe(`UPDATE ds_deals SET deleted_at = '2026-01-02T00:00:00.000Z' WHERE id = 'deal_4'`)
        yield* sql.unsafe(`UPDATE ds_deals SET data = '{"contact_ids": ["con_f"]}' WHERE id = 'deal_3'`)
        yield* sql.unsafe(`UPDATE ds_deals SET data = '{"contact_ids": "con_a"}' WHERE id = 'deal_5'`)
        yield* sql.unsafe(`UPDATE ds_deals SET data = '{"contact_ids": ["con_g"]}' WHERE id = 'deal_6'`)
        expect(yield* links(sql)).toEqual([
          "ws_a con_a deal_2",
          "ws_a con_b deal_1",
          "ws_a con_e deal_1",
          "ws_a con_f deal_3",
          "ws_b con_g deal_6"
        ])

        // A purge deletes the row; a restore after it cannot bring links back that the row lacks.
        yield* sql.unsafe(`DELETE FROM ds_deals WHERE id IN ('deal_1', 'deal_6')`)
        yield* sql.unsafe(`UPDATE ds_deals SET deleted_at = NULL WHERE id = 'deal_4'`)
        expect(yield* links(sql)).toEqual(["ws_a con_a deal_2", "ws_a con_c deal_4", "ws_a con_f deal_3"])

        // A rebuild empties the table with TRUNCATE, then writes the deals again.
        yield* sql.unsafe(`TRUNCATE ds_deals`)
        expect(yield* links(sql)).toEqual([])
        yield* insertDeal(sql, "ws_a", "deal_7", { contact_ids: ["con_h"] })
        expect(yield* links(sql)).toEqual(["ws_a con_h deal_7"])
      }).pipe(Effect.scoped),
    60_000
  )
})
