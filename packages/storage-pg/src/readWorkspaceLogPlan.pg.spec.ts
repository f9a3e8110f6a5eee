import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type AnalyzedPlanNode as PlanNode, nodesOf, planOf } from "../../../test/support/planNodes.js"
import { testSqlLayer } from "../../../test/support/pg.js"
import { workspaceHeadSql } from "./headSequence.js"
import { readWorkspaceLogParams, readWorkspaceLogSql } from "./readWorkspaceLog.js"

// A workspace's walk (recovery runners, as-of reads) follows the change feed's order: one range of
// ds_events_workspace_feed (0013) between two feed positions, and its head one step of it backwards.
describe("readWorkspaceLog's plan", () => {
  it.layer(testSqlLayer)((it) => {
    it.effect("walks one workspace's range of the feed index between two positions, and takes its head from its end", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const explain = (text: string, params: ReadonlyArray<unknown>) => planOf<PlanNode>(sql, text, params, ["ANALYZE", "BUFFERS"])
        // 50,000 events of 50 workspaces, ten to a transaction key, the workspaces interleaved.
        yield* sql.unsafe(`
        INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at, xact_id)
        SELECT 'con_' || n, 1, 'ws_' || (n % 50), CASE WHEN n % 2 = 0 THEN 'x.even' ELSE 'x.odd' END,
          jsonb_build_object('n', n), '{}'::jsonb, now(), ((1000 + n / 10)::text)::xid8
        FROM generate_series(0, 49999) AS n`)
        yield* sql.unsafe(`ANALYZE ds_events`)
        const keys = yield* sql.unsafe<{ readonly xact: string; readonly sequence: string }>(
          `SELECT xact_id::text AS xact, sequence::text AS sequence FROM ds_events WHERE workspace_id = 'ws_7' ORDER BY xact_id, sequence`
        )
        const at = (i: number) => ({ transaction: keys[i]!.xact, sequence: Number(keys[i]!.sequence) })

        const plan = (options: Parameters<typeof readWorkspaceLogParams>[0]) =>
          explain(readWorkspaceLogSql(options.types !== undefined), readWorkspaceLogParams(options))
        // ws_7's events are all x.odd: the types filter keeps every one.
        for (const types of [undefined, ["x.odd"]]) {
          const typed = types === undefined ? {} : { types }
          // A page of a long walk (a runner's chunk, an as-of read's page, up to the head): a limit
          // over one index scan in the index's order, no sort, entered at the position.
          const page = yield* plan({ workspaceId: "ws_7", after: at(100), until: at(999), limit: 50, ...typed })
          const nodes = nodesOf(page)
          expect(nodes.map((node) => node["Node Type"])).toEqual(["Limit", "Index Scan"])
          expect(nodes[1]!["Index Name"]).toBe("ds_events_workspace_feed")
          expect(nodes[1]!["Index Cond"]).toMatch(/ROW\(xact_id, sequence\) > ROW/)
          expect(page["Actual Rows"]).toBe(50)
          expect(page["Shared Hit Blocks"] + page["Shared Read Blocks"]).toBeLessThan(70)
          // A short range between two positions: the index's range only, whichever way the planner takes it.
          const range = yield* plan({ workspaceId: "ws_7", after: at(500), until: at(520), limit: 1000, ...typed })
          const scans = nodesOf(range).filter((node) => node["Node Type"].includes("Scan"))
          expect(scans.map((node) => node["Node Type"])).not.toContain("Seq Scan")
          expect(scans.flatMap((node) => (node["Index Name"] === undefined ? [] : [node["Index Name"]]))).toEqual([
            "ds_events_workspace_feed"
          ])
          expect(range["Actual Rows"]).toBe(20)
          expect(range["Shared Hit Blocks"] + range["Shared Read Blocks"]).toBeLessThan(40)
        }

        const head = yield* explain(workspaceHeadSql, ["ws_7"])
        const nodes = nodesOf(head)
        expect(nodes.map((node) => node["Node Type"])).toEqual(["Limit", "Index Only Scan"])
        expect(nodes[1]!["Index Name"]).toBe("ds_events_workspace_feed")
        expect(nodes[1]!["Scan Direction"]).toBe("Backward")
        expect(head["Actual Rows"]).toBe(1)
        expect(head["Shared Hit Blocks"] + head["Shared Read Blocks"]).toBeLessThan(10)
      })
    )
  })
})
