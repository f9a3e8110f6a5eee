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
    `CREATE INDEX ds_deals_closed_at ON ds_deals (workspace_id, (${timestamp("closed_at")}), id) WHERE deleted_at IS NULL`
  ]
}
