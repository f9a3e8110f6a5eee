import type { DocumentQuery, Expr } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { nodesOf, planOf } from "../../../test/support/planNodes.js"
import { testSqlLayer } from "../../../test/support/pg.js"
import { claimSql } from "./claimDeliveries.js"
import { migrate } from "./migrate.js"
import { nextDueSql } from "./nextDue.js"
import { builtInTables } from "./documentTableMap.js"
import { compileQuery } from "./queryDocuments.js"
import { releaseSql } from "./releaseLeases.js"

const DELIVERIES = 100_000
const ws = "ws_big"

const Sql = PgClient.PgClient

// A delivery history as it grows: almost every delivery sent long ago, a queue of 2% pending
// (due or scheduled retries), 20 webhooks per workspace, a few other workspaces.
const seed = (sql: SqlClient) =>
  Effect.gen(function* () {
    yield* migrate(sql)
    yield* sql.unsafe(`
      INSERT INTO ds_deliveries (workspace_id, id, version, data)
      SELECT CASE WHEN n % 10 = 0 THEN 'ws_other_' || (n % 7) ELSE '${ws}' END,
             'dlv_' || lpad(n::text, 8, '0'), 1,
             jsonb_build_object(
               'id', 'dlv_' || lpad(n::text, 8, '0'),
               'webhook_id', 'wh_' || (n % 20),
               'event_stream_id', 'con_' || (n / 3),
               'status', CASE WHEN n % 50 = 0 THEN 'pending' WHEN n % 97 = 0 THEN 'failed' ELSE 'succeeded' END,
               'next_attempt_at', CASE WHEN n % 50 = 0
                 THEN to_char(timestamp '2025-06-01' + n * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END,
               'created_at', to_char(timestamp '2025-01-01' + n * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      FROM generate_series(1, ${DELIVERIES}) AS n`)
    yield* sql.unsafe(`ANALYZE ds_deliveries`)
  })

const explain = (text: string, params: ReadonlyArray<unknown>) =>
  Effect.gen(function* () {
    const sql = yield* Sql
    const nodes = nodesOf(yield* planOf(sql, text, params))
    return {
      seqScans: nodes.filter((n) => n["Node Type"] === "Seq Scan" && n["Relation Name"] === "ds_deliveries"),
      indexes: nodes.flatMap((n) => (n["Index Name"] === undefined ? [] : [n["Index Name"]]))
    }
  })

const ofWebhook = (status: string | null): DocumentQuery => {
  const byWebhook: Expr = { _tag: "Compare", field: { name: "webhook_id", type: "id" }, op: "eq", value: "wh_3" }
  return {
    where:
      status === null
        ? byWebhook
        : { _tag: "And", exprs: [byWebhook, { _tag: "Compare", field: { name: "status", type: "enum" }, op: "eq", value: status }] },
    scope: "live",
    sort: { field: { name: "created_at", type: "timestamp" }, direction: "desc" },
    after: null,
    limit: 51
  }
}

describe("delivery query plans on 100k deliveries", () => {
  it.layer(testSqlLayer, { timeout: 120_000 })((it) => {
    it.effect("claim, next due and release read the pending index; a webhook's list and a purged record's deliveries read their own", () =>
      Effect.gen(function* () {
        yield* seed(yield* Sql)
        const list = (status: string | null) => {
          const compiled = compileQuery(builtInTables, "delivery", ws, ofWebhook(status))
          return [compiled.text, compiled.params] as const
        }
        const ofEventStream = compileQuery(builtInTables, "delivery", ws, {
          where: { _tag: "Compare", field: { name: "event_stream_id", type: "id" }, op: "eq", value: "con_4242" },
          scope: "live",
          sort: { field: { name: "id", type: "id" }, direction: "asc" },
          after: null,
          limit: 500
        })
        const cases: ReadonlyArray<readonly [string, string, ReadonlyArray<unknown>, string]> = [
          ["a purged record's deliveries (purgedDeliveries)", ofEventStream.text, ofEventStream.params, "ds_deliveries_event_stream"],
          ["claim", claimSql, ["2025-07-01T00:00:00.000Z", 10, "worker", "2025-07-01T00:01:00.000Z", ["wh_busy"], 4], "ds_deliveries_due"],
          ["next due", nextDueSql, [], "ds_deliveries_due"],
          ["release", releaseSql, ["worker"], "ds_deliveries_due"],
          ["a webhook's deliveries, newest first", ...list(null), "ds_deliveries_webhook_created_at"],
          ["a webhook's failed deliveries, newest first", ...list("failed"), "ds_deliveries_webhook_created_at"],
          ["a webhook's pending deliveries, newest first", ...list("pending"), "ds_deliveries_webhook_created_at"]
        ]
        for (const [name, text, params, index] of cases) {
          const plan = yield* explain(text, params)
          expect({ name, seqScans: plan.seqScans }).toEqual({ name, seqScans: [] })
          expect({ name, indexes: plan.indexes }).toEqual({ name, indexes: expect.arrayContaining([index]) })
        }
      })
    )
  })
})
