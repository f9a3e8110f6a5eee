import type { Migration } from "./Migration.js"

/**
 * Conversion's reads (issue 27) as ranges of an index, none of them read for a twentieth:
 *
 * - One owner (`owner_id`): migration 0022's indexes lead with the pipeline and the time, so one
 *   owner's window read every owner's entries and stays in it (in the bench's seed, a 90-day window
 *   holds 147,957 entries, 8,632 of them one owner's). These lead with the owner. The
 *   pipeline-wide entries keep 0022's (PostgreSQL 15 cannot skip a leading column it is not given).
 * - The stays, by stage: figures.ts reads each stage's stays as a range of its own and takes its
 *   median there, instead of sorting the window's stays by stage; 0022's index of the stays is
 *   then read by nothing and goes.
 *
 * Each stage change is one more index entry than before. The builds read the table once and hold
 * writes to it meanwhile (bench/ANALYSIS.md, "Issue 27", has the figures).
 */
export const migration: Migration = {
  id: 34,
  name: "conversion by owner and stage",
  statements: [
    `CREATE INDEX ds_stage_changes_entered_by_owner ON ds_stage_changes (workspace_id, to_pipeline_id, owner_id, at_ms)
      INCLUDE (deal_id, deal_version, to_stage_id)
      WHERE deleted_at IS NULL`,
    // The stays, by stage: a range per stage, so no sort by stage (figures.ts). 0022's is then unread.
    "DROP INDEX ds_stage_changes_left",
    `CREATE INDEX ds_stage_changes_left_by_stage ON ds_stage_changes (workspace_id, from_pipeline_id, from_stage_id, at_ms)
      INCLUDE (from_entered_ms)
      WHERE deleted_at IS NULL AND from_stage_id IS NOT NULL`,
    `CREATE INDEX ds_stage_changes_left_by_owner ON ds_stage_changes (workspace_id, from_pipeline_id, owner_id, from_stage_id, at_ms)
      INCLUDE (from_entered_ms)
      WHERE deleted_at IS NULL AND from_stage_id IS NOT NULL`
  ]
}
