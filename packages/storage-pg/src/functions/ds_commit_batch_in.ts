import type { StoredFunction } from "./StoredFunction.js"

/**
 * ds_commit_batch for commits of one workspace, named as its first argument: on Citus this is the
 * function delegated to the worker holding that workspace (citus.ts), so the whole batch runs there
 * in one local transaction (no two-phase commit, the worker's own transaction ids, feed marks and
 * notifications), and the coordinator only forwards the call; run anywhere else it refuses
 * (ds_workspace_here.ts). commitBatches.ts sends it on Citus
 * only, with every commit of the batch in `workspace`; on plain PostgreSQL it is never called.
 */
export const ds_commit_batch_in: StoredFunction = {
  name: "ds_commit_batch_in",
  text: `CREATE OR REPLACE FUNCTION ds_commit_batch_in(workspace text, items jsonb)
    RETURNS jsonb LANGUAGE plpgsql AS $in$
    BEGIN
      PERFORM ds_workspace_here(workspace);
      RETURN ds_commit_batch(items);
    END
    $in$`
}
