import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { type AnalyzedPlanNode as PlanNode, nodesOf, planOf } from "../../../test/support/planNodes.js"
import { testDatabase } from "../../../test/support/pg.js"
import { migrate } from "./migrate.js"
import { readStreamSql, readWorkspaceStreamSql } from "./readStream.js"

describe("readStream's plan", () => {
  it.live("reads the tail of a 1,000-event stream from the index, at the version it asks for", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const sql = yield* PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }).pipe(
        Effect.provide(Reactivity.layer)
      )
      yield* migrate(sql)
      // The long stream, written in one go, amid 50,000 events of 5,000 other streams.
      yield* sql.unsafe(`
        INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
        SELECT s, v, 'ws_plan', 'x.n', jsonb_build_object('n', v), '{}'::jsonb, now()
        FROM (SELECT 'con_long' AS s, v FROM generate_series(1, 1000) AS v
              UNION ALL
              SELECT 'con_' || (n % 5000), n / 5000 + 1 FROM generate_series(0, 49999) AS n) AS events`)
      yield* sql.unsafe(`ANALYZE ds_events`)

      // The read by stream id alone, and the one naming the stream's workspace too.
      for (const [text, params] of [
        [readStreamSql, ["con_long", 995]],
        [readWorkspaceStreamSql, ["con_long", 995, "ws_plan"]]
      ] as const) {
        const plan = yield* planOf<PlanNode>(sql, text, params, ["ANALYZE", "BUFFERS"])
        const nodes = nodesOf(plan)
        // One index scan, in the index's order (no sort), entered at the version after 995.
        expect(nodes.map((node) => node["Node Type"])).toEqual(["Index Scan"])
        expect(plan["Index Name"]).toBe("ds_events_stream_version")
        expect(plan["Index Cond"]).toMatch(/stream_version > /)
        expect(plan["Rows Removed by Filter"] ?? 0).toBe(0)
        expect(plan["Actual Rows"]).toBe(5)
        // A few index and heap pages of a table of hundreds.
        expect(plan["Shared Hit Blocks"] + plan["Shared Read Blocks"]).toBeLessThan(10)
      }
      const [{ pages } = { pages: 0 }] = yield* sql.unsafe<{ readonly pages: number }>(
        `SELECT relpages AS pages FROM pg_class WHERE relname = 'ds_events'`
      )
      expect(pages).toBeGreaterThan(100)
    }).pipe(Effect.scoped)
  )
})
