import { tables } from "../tables.js"
import { keptPlan } from "./keptPlan.js"
import type { StoredFunction } from "./StoredFunction.js"

/**
 * The SQLSTATE of a `…_in` call that ran on a server not holding its workspace. Not a standard
 * class: nothing else raises it, and the storage knows it by this alone (citusDelegation.ts).
 */
export const NOT_HERE = "DSW01"

/**
 * Refuses, with NOT_HERE, to go on unless this server holds the workspace's shard of the log.
 * Called first by the functions Citus delegates by workspace (ds_commit_batch_in, ds_feed_bound_in):
 * both are right only on that worker, where the workspace's commits take their transaction ids and
 * feed marks. Citus runs such a call on the coordinator instead, silently, when it declines to
 * delegate: a backend where a statement once failed while Citus planned its subqueries (the
 * delivery claim's multi-shard FOR UPDATE did) never delegates again. A commit run there takes the
 * coordinator's transaction ids, which the worker's feed bound does not order, and its events can
 * fall behind a follower's cursor: lost to it. Only ever called on Citus, whose catalogs it reads.
 */
export const ds_workspace_here: StoredFunction = {
  name: "ds_workspace_here",
  text: `CREATE OR REPLACE FUNCTION ds_workspace_here(workspace text)
    RETURNS void LANGUAGE plpgsql STABLE AS $here$
    BEGIN
      IF NOT EXISTS (
        SELECT 1 FROM pg_dist_placement AS p
        WHERE p.shardid = get_shard_id_for_distribution_column('ds_events', workspace)
          AND p.groupid = (SELECT groupid FROM pg_dist_local_group)
      ) THEN
        RAISE EXCEPTION 'workspace % is not on this server: the call was not delegated to its worker', workspace
          USING ERRCODE = '${NOT_HERE}';
      END IF;
    END
    $here$`
}

/** PostgreSQL's ShareLock, by the number lock_shard_metadata takes. */
const SHARE_LOCK = 5

/**
 * The first statements of a function that works on a workspace's shards where it runs: Citus's
 * shard metadata lock on the workspace's log shard, shared and held to the transaction's end, and
 * only then the check that the shard is here. A move takes that lock exclusively before it switches
 * the placements, so once the check passed the shards stay here until the transaction ends
 * (ds_commit_batch_in.ts says what went wrong without it).
 */
export const holdWorkspaceHere = (workspace: string) =>
  `PERFORM lock_shard_metadata(${SHARE_LOCK}, ARRAY[get_shard_id_for_distribution_column('${tables.events}', ${workspace})]);
      ${checkWorkspaceHere(workspace)}`

/** The statement that refuses to go on unless the workspace is here (ds_workspace_here), its plan kept. */
export const checkWorkspaceHere = (workspace: string) => `PERFORM ${keptPlan(`ds_workspace_here(${workspace})`)};`
