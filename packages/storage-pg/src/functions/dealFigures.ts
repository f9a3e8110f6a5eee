import type { StoredFunction } from "./StoredFunction.js"
import { type Layout, localStatement } from "./workspaceRows.js"

/**
 * The functions that keep the pipeline figures' totals (migration 0022 says what they hold, and
 * creates the tables and the triggers): a row trigger on ds_deal_standings adds each standing's
 * old contribution taken away and its new one added as delta rows, and now and then (one change
 * in COMPACT_EVERY) a transaction that gets the workspace's advisory lock without waiting moves
 * the deltas it can see into the totals, one at a time. No transaction ever waits on a total, so
 * none can deadlock on one; a reader sums totals and deltas in one statement. A TRUNCATE of the
 * standings (a rebuild) empties both.
 */

/** The measures a total keeps, each a sum of its deals' contributions (figures.ts says how they are read). */
export const MEASURES = [
  "n bigint NOT NULL",
  "valued bigint NOT NULL",
  "value numeric NOT NULL",
  "own_n bigint NOT NULL",
  "own numeric NOT NULL",
  "bare_n bigint NOT NULL",
  "bare numeric NOT NULL",
  "entered numeric NOT NULL",
  "cycle numeric NOT NULL"
]
export const KEYS = ["kind", "pipeline_id", "stage_id", "status", "currency", "owner_id", "period"]
const measureNames = MEASURES.map((measure) => measure.split(" ")[0]!)

export const FIGURE_LOCK_CLASS = 1_717_920_127
/** How many standing changes, on average, per attempt to move the deltas into the totals. */
const COMPACT_EVERY = 8

const key = KEYS.map((k) => `coalesce(${k}, chr(30))`).join(" || chr(31) || ")

/** The fields of a standing a contribution reads, `$1`… in order; the sign is the last. */
const FIELDS = [
  "workspace_id",
  "pipeline_id",
  "stage_id",
  "status",
  "currency",
  "owner_id",
  "value",
  "probability",
  "expected_close_date",
  "created_ms",
  "closed_ms",
  "entered_ms"
] as const
const f = (name: (typeof FIELDS)[number]) => `$${FIELDS.indexOf(name) + 1}`
const sign = `$${FIELDS.length + 1}`

const month = (ms: string) => `to_char(to_timestamp(${ms} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM')`
const day = (ms: string) => `to_char(to_timestamp(${ms} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`

const contribution = (layout: Layout, row: string, kind: string, columns: Partial<Record<(typeof KEYS)[number], string>>) =>
  localStatement(layout, {
    table: "ds_figure_deltas",
    workspace: `${row}.workspace_id`,
    sql: `INSERT INTO {t} (workspace_id, ${KEYS.join(", ")}, ${measureNames.join(", ")})
      VALUES (${f("workspace_id")}, '${kind}', ${KEYS.slice(1)
        .map((k) => columns[k] ?? "NULL")
        .join(", ")},
        ${sign}, CASE WHEN ${f("value")} IS NULL THEN 0 ELSE ${sign} END, ${sign} * coalesce(${f("value")}, 0),
        CASE WHEN ${f("value")} IS NULL OR ${f("probability")} IS NULL THEN 0 ELSE ${sign} END,
        ${sign} * coalesce(${f("value")} * ${f("probability")}, 0),
        CASE WHEN ${f("value")} IS NULL OR ${f("probability")} IS NOT NULL THEN 0 ELSE ${sign} END,
        CASE WHEN ${f("probability")} IS NULL THEN ${sign} * coalesce(${f("value")}, 0) ELSE 0 END,
        ${sign} * coalesce(${f("entered_ms")}, 0),
        ${sign} * coalesce(${f("closed_ms")} - coalesce(${f("created_ms")}, ${f("closed_ms")}), 0))`,
    params: [...FIELDS.map((field) => `${row}.${field}`), "sign"]
  })

const contributionsOf = (layout: Layout, row: string) => {
  const of = { pipeline_id: f("pipeline_id"), currency: f("currency"), owner_id: f("owner_id") }
  return `
    ${contribution(layout, row, "stage", { ...of, stage_id: f("stage_id"), status: f("status") })}
    IF ${row}.status = 'open' THEN
      ${contribution(layout, row, "forecast", { ...of, stage_id: f("stage_id"), status: "'open'", period: `substr(${f("expected_close_date")}, 1, 7)` })}
    ELSIF ${row}.status = 'won' AND ${row}.closed_ms IS NOT NULL THEN
      ${contribution(layout, row, "forecast", { ...of, stage_id: f("stage_id"), status: "'won'", period: month(f("closed_ms")) })}
    END IF;
    IF ${row}.status IN ('won', 'lost') AND ${row}.closed_ms IS NOT NULL THEN
      ${contribution(layout, row, "closed", { pipeline_id: f("pipeline_id"), status: f("status"), owner_id: f("owner_id"), period: day(f("closed_ms")) })}
    END IF;`
}

/**
 * The function that adds a standing's contribution to the deltas, its row given as `rowType`:
 * `record` today, so that it also takes the row of a Citus shard (`ds_deal_standings_102344`),
 * whose type is the shard's own (migration 0028); migration 0022 made it with the table's type.
 */
export const figureDeltasOf = (rowType: string, layout: Layout = "plain") =>
  `CREATE OR REPLACE FUNCTION ds_figure_deltas_of(s ${rowType}, sign integer) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN${contributionsOf(layout, "s")}
  END
  $$`

export const dealFigures = (layout: Layout): ReadonlyArray<StoredFunction> => [
  { name: "ds_figure_deltas_of", text: figureDeltasOf("record", layout) },
  {
    name: "ds_figure_totals_compact",
    text: `CREATE OR REPLACE FUNCTION ds_figure_totals_compact(w text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    ${localStatement(layout, {
      table: "ds_figure_deltas",
      also: ["ds_figure_totals"],
      workspace: "w",
      sql: `WITH moved AS (DELETE FROM {t} WHERE workspace_id = $1 RETURNING *)
    INSERT INTO {t1} AS t (workspace_id, k, ${KEYS.join(", ")}, ${measureNames.join(", ")})
      SELECT workspace_id, ${key}, ${KEYS.join(", ")}, ${measureNames.map((m) => `sum(${m})`).join(", ")}
      FROM moved GROUP BY workspace_id, ${KEYS.join(", ")}
      ON CONFLICT (workspace_id, k) DO UPDATE SET ${measureNames.map((m) => `${m} = t.${m} + excluded.${m}`).join(", ")}`,
      params: ["w"]
    })}
  END
  $$`
  },
  {
    name: "ds_deal_standings_totals",
    text: `CREATE OR REPLACE FUNCTION ds_deal_standings_totals() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    w text;
  BEGIN
    IF TG_OP = 'UPDATE' AND (OLD.deleted_at, OLD.pipeline_id, OLD.stage_id, OLD.status, OLD.owner_id, OLD.value, OLD.currency,
        OLD.probability, OLD.expected_close_date, OLD.created_ms, OLD.closed_ms, OLD.entered_ms)
      IS NOT DISTINCT FROM (NEW.deleted_at, NEW.pipeline_id, NEW.stage_id, NEW.status, NEW.owner_id, NEW.value, NEW.currency,
        NEW.probability, NEW.expected_close_date, NEW.created_ms, NEW.closed_ms, NEW.entered_ms) THEN
      RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL THEN PERFORM ds_figure_deltas_of(OLD, -1); END IF;
    IF TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL THEN PERFORM ds_figure_deltas_of(NEW, 1); END IF;
    w := CASE WHEN TG_OP = 'DELETE' THEN OLD.workspace_id ELSE NEW.workspace_id END;
    -- Never waits: a transaction that does not get the lock leaves its deltas to the next one that does.
    -- One change in ${COMPACT_EVERY} on average tries (readers sum the deltas too, so a few left over cost them
    -- little); compacting at every change cost a move a tenth of its time, a third on Citus.
    IF random() < 1.0 / ${COMPACT_EVERY} AND pg_try_advisory_xact_lock(${FIGURE_LOCK_CLASS}, hashtext(w)) THEN
      PERFORM ds_figure_totals_compact(w);
    END IF;
    RETURN NULL;
  END
  $$`
  },
  {
    name: "ds_deal_standings_truncated",
    text: `CREATE OR REPLACE FUNCTION ds_deal_standings_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    TRUNCATE ds_figure_totals, ds_figure_deltas;
    RETURN NULL;
  END
  $$`
  }
]
