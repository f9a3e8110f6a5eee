import { dealFigures, figureDeltasOf, KEYS, MEASURES } from "../functions/dealFigures.js"
import type { Migration } from "./Migration.js"

/**
 * The tables the pipeline figures are read from (issue 27): core's `deal_standing` and
 * `stage_change` documents (core's deal/figureDocuments.ts), written by ds_commit like every other
 * document table (the table list of functions/documentTableList.ts names them from tables.ts).
 *
 * Each has the document table's shape (0002), plus the fields the figures read as stored generated
 * columns, so that a figure is an index-only scan of one covering index and an aggregate of what
 * it holds (figures.ts), without reading a row's jsonb: one pipeline's live deals (of one owner) for
 * the summary, the forecast and the won/lost counts; one window of a pipeline's stage entries for
 * conversion; one window of the stays that ended, for the days in each stage. The commit functions
 * write only the document columns; PostgreSQL fills the generated ones in the same statement.
 *
 * And an index for sorting deals by closed_at (the deal list's `sort=closed_at`), on the query
 * compiler's expression (a frozen copy of fieldSql.ts's timestamp, as in 0002).
 */

const documentTable = (name: string, generated: ReadonlyArray<string>) => [
  `CREATE TABLE ${name} (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    version integer NOT NULL,
    deleted_at text COLLATE "C",
    data jsonb NOT NULL,
    unique_key text COLLATE "C",
    search_words text[] COLLATE "C" NOT NULL DEFAULT '{}',
    folded jsonb NOT NULL DEFAULT '{}',
    ${generated.join(",\n    ")},
    PRIMARY KEY (workspace_id, id)
  )`,
  `CREATE INDEX ${name}_deleted ON ${name} (workspace_id, deleted_at, id) WHERE deleted_at IS NOT NULL`,
  // Shape only: these documents claim no key. commit.ts reads a table back from this index's name.
  `CREATE UNIQUE INDEX ${name}_unique_key ON ${name} (workspace_id, unique_key) WHERE unique_key IS NOT NULL`
]

const text = (key: string) => `${key} text COLLATE "C" GENERATED ALWAYS AS (data ->> '${key}') STORED`
const integer = (key: string, type: "integer" | "bigint") => `${key} ${type} GENERATED ALWAYS AS ((data ->> '${key}')::${type}) STORED`
const numeric = (key: string) => `${key} numeric GENERATED ALWAYS AS ((data ->> '${key}')::numeric) STORED`

const timestamp = (key: string) =>
  `((CASE WHEN jsonb_typeof(data -> '${key}') = 'string' AND (data ->> '${key}') COLLATE "C" ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$' THEN data ->> '${key}' END) COLLATE "C")`

const plainFigures = new Map(dealFigures("plain").map(({ name, text }) => [name, text]))

const keyColumns = KEYS.map((key) => `${key} text COLLATE "C"`)

/**
 * Totals of the standings that the summary, the forecast and the won and lost counts read, kept by
 * a row trigger on ds_deal_standings in the commit that writes a standing: so those figures read a
 * few hundred rows, whatever the number of deals. `kind` says which figure a total serves:
 *
 * - `stage`: per stage, status, currency and owner (the summary);
 * - `forecast`: open deals per month of their expected_close_date (null: none), won deals per month
 *   of their closed_at, per stage, currency and owner (the forecast);
 * - `closed`: won and lost deals per day of their closed_at and owner, with their cycle (conversion).
 *
 * Deals come and go from a total without a lock on it: each standing written adds delta rows
 * (its old contribution taken away, its new one added), and one transaction at a time, the one
 * that gets the workspace's advisory lock without waiting, moves the deltas it can see into the
 * totals. No transaction ever waits on a total, so none can deadlock on one; a reader sums totals and
 * deltas in one statement, which sees a move into the totals whole or not at all. A TRUNCATE of
 * the standings (a rebuild) empties both.
 */
const figureTotals = [
  `CREATE TABLE ds_figure_totals (
    workspace_id text COLLATE "C" NOT NULL,
    k text COLLATE "C" NOT NULL,
    ${keyColumns.join(",\n    ")},
    ${MEASURES.join(",\n    ")},
    PRIMARY KEY (workspace_id, k)
  )`,
  `CREATE INDEX ds_figure_totals_kind ON ds_figure_totals (workspace_id, kind, pipeline_id, period)`,
  `CREATE TABLE ds_figure_deltas (
    workspace_id text COLLATE "C" NOT NULL,
    ${keyColumns.join(",\n    ")},
    ${MEASURES.join(",\n    ")}
  )`,
  `CREATE INDEX ds_figure_deltas_kind ON ds_figure_deltas (workspace_id, kind, pipeline_id, period)`,
  // The functions as functions/dealFigures.ts writes them on one server, but for the row type
  // (migration 0028 made it record).
  figureDeltasOf("ds_deal_standings"),
  plainFigures.get("ds_figure_totals_compact")!,
  plainFigures.get("ds_deal_standings_totals")!,
  `CREATE TRIGGER ds_deal_standings_totals AFTER INSERT OR UPDATE OR DELETE ON ds_deal_standings
    FOR EACH ROW EXECUTE FUNCTION ds_deal_standings_totals()`,
  plainFigures.get("ds_deal_standings_truncated")!,
  `CREATE TRIGGER ds_deal_standings_truncated AFTER TRUNCATE ON ds_deal_standings FOR EACH STATEMENT EXECUTE FUNCTION ds_deal_standings_truncated()`
]

export const migration: Migration = {
  id: 22,
  name: "deal figures",
  statements: [
    ...documentTable("ds_deal_standings", [
      text("pipeline_id"),
      text("stage_id"),
      text("status"),
      text("owner_id"),
      numeric("value"),
      text("currency"),
      numeric("probability"),
      text("expected_close_date"),
      integer("created_ms", "bigint"),
      integer("closed_ms", "bigint"),
      integer("entered_ms", "bigint")
    ]),
    // Summary, won and lost, and forecast of one pipeline (or, by its first column, of all).
    `CREATE INDEX ds_deal_standings_pipeline ON ds_deal_standings (workspace_id, pipeline_id, owner_id)
      INCLUDE (stage_id, status, currency, value, probability, expected_close_date, created_ms, closed_ms, entered_ms)
      WHERE deleted_at IS NULL`,
    // The days of a month a forecast's window cuts: open deals by expected date, won ones by close.
    `CREATE INDEX ds_deal_standings_expected ON ds_deal_standings (workspace_id, expected_close_date)
      INCLUDE (pipeline_id, owner_id, stage_id, currency, value, probability)
      WHERE deleted_at IS NULL AND status = 'open'`,
    `CREATE INDEX ds_deal_standings_won ON ds_deal_standings (workspace_id, closed_ms)
      INCLUDE (pipeline_id, owner_id, stage_id, currency, value, probability)
      WHERE deleted_at IS NULL AND status = 'won'`,
    ...documentTable("ds_stage_changes", [
      text("deal_id"),
      integer("deal_version", "integer"),
      integer("at_ms", "bigint"),
      text("from_pipeline_id"),
      text("from_stage_id"),
      integer("from_entered_ms", "bigint"),
      text("to_pipeline_id"),
      text("to_stage_id"),
      text("owner_id")
    ]),
    // The stages deals entered in a window: conversion.
    `CREATE INDEX ds_stage_changes_entered ON ds_stage_changes (workspace_id, to_pipeline_id, at_ms)
      INCLUDE (deal_id, deal_version, to_stage_id, owner_id)
      WHERE deleted_at IS NULL`,
    // The stays that ended in a window: days in each stage.
    `CREATE INDEX ds_stage_changes_left ON ds_stage_changes (workspace_id, from_pipeline_id, at_ms)
      INCLUDE (from_stage_id, from_entered_ms, owner_id)
      WHERE deleted_at IS NULL AND from_stage_id IS NOT NULL`,
    `CREATE INDEX ds_deals_closed_at ON ds_deals (workspace_id, (${timestamp("closed_at")}), id) WHERE deleted_at IS NULL`,
    ...figureTotals
  ]
}
