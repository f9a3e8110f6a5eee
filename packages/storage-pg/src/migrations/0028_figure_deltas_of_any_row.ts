import { figureDeltasOf } from "../functions/dealFigures.js"
import type { Migration } from "./Migration.js"

/**
 * The figures' row trigger hands each standing to ds_figure_deltas_of, which took the table's row
 * type. On Citus the trigger runs on a shard, whose rows are of the shard's own type
 * (`ds_deal_standings_102344`), and no function of that name takes it: every deal commit failed
 * there. A PL/pgSQL function that takes `record` reads the same fields of either.
 */
export const migration: Migration = {
  id: 28,
  name: "figure deltas of any row",
  statements: ["DROP FUNCTION ds_figure_deltas_of(ds_deal_standings, integer)", figureDeltasOf("record")]
}
