import type { FiguresQuery } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { nodesOf, planOf } from "../../../test/support/planNodes.js"
import { testSqlLayer } from "../../../test/support/pg.js"
import { figuresStatement } from "./figures.js"
import { migrate } from "./migrate.js"
import { itself } from "./reader.js"
import { documentTables } from "./tables.js"

// 120,000 stage changes of 20,000 deals and 20 owners over 83 days (one a minute), and as many in
// other workspaces: enough that reading every owner's rows of a window costs the planner twenty
// times one owner's, as it does a workspace in life.
const CHANGES = 120_000
const ws = "ws_figures"
const PIPELINE = "pipe_1"
const STAGES = ["stage_0", "stage_1", "stage_2", "stage_3", "stage_4", "stage_5"]
const DAY = 86_400_000
const START = Date.UTC(2026, 0, 1)

const table = documentTables.stage_change!

const seed = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  yield* migrate(sql)
  yield* sql.unsafe(`
    INSERT INTO ${table} (workspace_id, id, version, data)
    SELECT CASE WHEN n % 2 = 0 THEN '${ws}' ELSE 'ws_other_' || (n % 7) END, 'sc_' || n, 1,
      jsonb_build_object(
        'deal_id', 'deal_' || (n / 6), 'deal_version', 1 + n % 6,
        'at_ms', ${START}::bigint + (n / 2)::bigint * 60000,
        'from_pipeline_id', '${PIPELINE}', 'from_stage_id', 'stage_' || ((n + 5) % 6),
        'from_entered_ms', ${START}::bigint + (n / 2)::bigint * 60000 - 3600000,
        'to_pipeline_id', '${PIPELINE}', 'to_stage_id', 'stage_' || (n % 6),
        'owner_id', 'usr_' || ((n / 6) % 20))
    FROM generate_series(1, ${CHANGES * 2}) AS n`)
  yield* sql.unsafe(`VACUUM ANALYZE ${table}`)
})

const indexesOf = (query: FiguresQuery) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    const statement = figuresStatement(itself, table, ws, query)
    const nodes = nodesOf(yield* planOf(sql, statement.text, statement.params))
    return {
      seqScans: nodes.filter((n) => n["Node Type"] === "Seq Scan").length,
      sorts: nodes.filter((n) => n["Node Type"] === "Sort").length,
      indexes: nodes.flatMap((n) => (n["Index Name"] === undefined ? [] : [n["Index Name"]]))
    }
  })

const window = { pipelineId: PIPELINE, from: START + 10 * DAY, to: START + 40 * DAY }
const entries = (ownerId: string | null): FiguresQuery => ({
  _tag: "Entries",
  ownerId,
  ...window,
  stages: STAGES.map((stageId, position) => ({ stageId, position, rank: position === 4 ? 1_000_000 : position === 5 ? -1 : position }))
})
const stays = (ownerId: string | null): FiguresQuery => ({ _tag: "Stays", ownerId, ...window, stageIds: STAGES })

describe("conversion's plans on 120,000 stage changes", () => {
  it.layer(testSqlLayer, { timeout: 120_000 })((it) => {
    it.effect(
      "one owner's window is a range of that owner's rows; stays are a range per stage, unsorted",
      () =>
        Effect.gen(function* () {
          yield* seed
          // Migration 0034: without its indexes the owner's window reads every owner's rows.
          expect((yield* indexesOf(entries("usr_3"))).indexes).toEqual(["ds_stage_changes_entered_by_owner"])
          expect(yield* indexesOf(stays("usr_3"))).toEqual({ seqScans: 0, sorts: 0, indexes: ["ds_stage_changes_left_by_owner"] })
          expect(yield* indexesOf(stays(null))).toEqual({ seqScans: 0, sorts: 0, indexes: ["ds_stage_changes_left_by_stage"] })
          // Pipeline-wide entries: 0022's index (or, where PostgreSQL can skip the owner, 0034's), never the table.
          const pipelineWide = yield* indexesOf(entries(null))
          expect(pipelineWide.seqScans).toBe(0)
          expect(pipelineWide.indexes.length).toBeGreaterThan(0)
        }),
      120_000
    )
  })
})
