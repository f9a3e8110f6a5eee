import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { nodesOf, planOf } from "../../../test/support/planNodes.js"
import { testSqlLayer } from "../../../test/support/pg.js"
import { builtInTables } from "./documentTableMap.js"
import { itself } from "./reader.js"
import { batchSql } from "./readRecord.js"
import { batchedRecords } from "./recordBatches.js"

// The storage contract compares reads made at once with the same reads alone (storageContract.ts);
// here what only PostgreSQL shows: how many statements they took, and how each is planned.

const ws = "ws_batches"
const CONTACTS = 5_000
const linked = { collection: "deal", field: "contact_ids" } as const

/** `sql` whose unsafe statements are counted: the driver's real client, each call passed on as made. */
const counted = (sql: SqlClient) => {
  const texts: Array<string> = []
  const client = new Proxy(sql, {
    get: (target, key, receiver) =>
      key === "unsafe"
        ? (text: string, params?: ReadonlyArray<unknown>) => {
            texts.push(text)
            return target.unsafe(text, params as Array<unknown>)
          }
        : Reflect.get(target, key, receiver)
  })
  return { client, texts }
}

const seed = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  yield* sql.unsafe(`
    INSERT INTO ds_contacts (workspace_id, id, version, data)
    SELECT CASE WHEN n % 2 = 0 THEN '${ws}' ELSE 'ws_other' END, 'con_' || n, 1, jsonb_build_object('n', n)
    FROM generate_series(1, ${CONTACTS}) AS n`)
  yield* sql.unsafe(`INSERT INTO ds_deals (workspace_id, id, version, data) VALUES ('${ws}', 'deal_1', 1, '{"contact_ids": ["con_2"]}')`)
  yield* sql.unsafe("VACUUM ANALYZE ds_contacts")
})

describe("record reads batched on one server", () => {
  it.layer(testSqlLayer, { timeout: 60_000 })((it) => {
    it.effect(
      "reads made at once are one statement per shape of read, each row found by its key",
      () =>
        Effect.gen(function* () {
          yield* seed
          const { client, texts } = counted(yield* PgClient.PgClient)
          const read = batchedRecords(client, builtInTables)
          const ids = Array.from({ length: 20 }, (_, i) => `con_${2 * i + 2}`)

          const alone = yield* Effect.forEach(ids, (id) => read("contact", ws, id, linked))
          expect(texts.length).toBe(20)
          texts.length = 0
          const atOnce = yield* Effect.all(
            [...ids.map((id) => read("contact", ws, id, linked)), read("contact", ws, "con_2", null), read("contact", ws, "con_4", null)],
            { concurrency: "unbounded" }
          )
          expect(texts.length).toBe(2)
          expect(atOnce.slice(0, 20)).toEqual(alone)
          expect(atOnce.map((r) => r.document?.data["n"])).toEqual([...ids.map((id) => Number(id.slice(4))), 2, 4])
          expect(atOnce[0]!.linkedIds).toEqual(["deal_1"])

          // Each request's row by its key, not a scan of the table.
          const statement = batchSql(builtInTables, "contact", linked, itself)
          const nodes = nodesOf(yield* planOf(yield* PgClient.PgClient, statement, [ids.map(() => ws), ids]))
          expect(nodes.filter((n) => n["Node Type"] === "Seq Scan" && n["Relation Name"] === "ds_contacts")).toEqual([])
          expect(nodes.some((n) => n["Relation Name"] === "ds_contacts" && n["Index Name"] === "ds_contacts_pkey")).toBe(true)
        }),
      60_000
    )

    it.effect(
      "an id PostgreSQL cannot hold fails alone; the reads beside it are answered",
      () =>
        Effect.gen(function* () {
          const read = batchedRecords(yield* PgClient.PgClient, builtInTables)
          const [poisoned, ...others] = yield* Effect.all(
            [read("contact", ws, "con_\u0000", null), read("contact", ws, "con_2", null), read("contact", ws, "con_absent", null)].map(
              Effect.result
            ),
            { concurrency: "unbounded" }
          )
          expect(Result.isFailure(poisoned!)).toBe(true)
          expect(others.map((r) => (Result.isSuccess(r) ? (r.success.document?.id ?? null) : "failed"))).toEqual(["con_2", null])
        }),
      60_000
    )

    it.effect(
      "a batch whose statement fails answers each of its reads with that failure",
      () =>
        Effect.gen(function* () {
          const sql = yield* PgClient.PgClient
          const read = batchedRecords(sql, builtInTables)
          yield* sql.unsafe("ALTER TABLE ds_settings_versions RENAME TO ds_settings_versions_away")
          const answers = yield* Effect.all(
            ["con_2", "con_4", "con_6"].map((id) => Effect.result(read("contact", ws, id, null))),
            { concurrency: "unbounded" }
          )
          yield* sql.unsafe("ALTER TABLE ds_settings_versions_away RENAME TO ds_settings_versions")
          expect(answers.map((answer) => (Result.isFailure(answer) ? answer.failure._tag : "answered"))).toEqual([
            "SqlError",
            "SqlError",
            "SqlError"
          ])
        }),
      60_000
    )
  })
})
