import { FEED_LOCK_CLASS } from "../internal/feedLock.js"
import { FEED_OFFSET_SETTING, localServer } from "../internal/feedOffset.js"
import { tables } from "../tables.js"
import { ONE_BY_ONE } from "./ds_commit_batch.js"
import { holdWorkspaceHere } from "./ds_workspace_here.js"
import { keptPlan } from "./keptPlan.js"
import type { StoredFunction } from "./StoredFunction.js"
import { LOCAL_WORKSPACE_SETTING, localStatement } from "./workspaceRows.js"

const eraOf = localStatement("citus", {
  table: tables.feedOffsets,
  workspace: "workspace",
  sql: "SELECT o.server, o.xact_offset FROM {t} AS o WHERE o.workspace_id = $1",
  params: ["workspace"],
  into: "era"
})

/**
 * ds_commit_batch for commits of one workspace, named as its first argument: on Citus this is the
 * function delegated to the worker holding that workspace (citus.ts), so the whole batch runs there
 * in one local transaction (no two-phase commit, the worker's own transaction ids and feed marks),
 * and the coordinator only forwards the call; run anywhere else it refuses (ds_workspace_here.ts).
 * commitBatches.ts sends it on Citus only, with every commit of the batch in `workspace`; on plain
 * PostgreSQL it is never called.
 *
 * The workspace's shards being here, the commit writes their tables directly (workspaceRows.ts).
 *
 * First the workspace's feed offset (internal/feedOffset.ts), handed to the log's key through a
 * transaction-local setting. Where the offset was set for another worker (the workspace's shards
 * moved here) or never, it is set again, once, under the feed lock held exclusively: that waits
 * for every commit of the workspace running here, and holds the next ones back until this one
 * ends, so no commit here uses the old offset once a reader may see the new one. The new offset
 * puts this transaction's key (and so every later one's: ids only grow) above every key stored,
 * and never below the old offset, so a bound a reader took with the old one stays below every new
 * key (ds_feed_bound_in). Taken before the batch's shared marks, since a lock cannot be raised
 * from shared to exclusive without deadlocking against another commit doing the same.
 *
 * Before all of it, Citus's shard metadata lock on the workspace's shard of the log, shared, held to
 * the commit, and only then the check that the shard is here. A move blocks writes by taking that
 * lock exclusively on every worker (BlockWritesToShardList, citus operations/shard_transfer.c) and
 * switches the placement before it lets go. Without it, a call that passed the check just before a
 * move would wait in its first insert, and Citus's executor, loading the placements once it has the
 * lock, would send the rows to the new worker with keys made here: late, and below keys the new
 * worker's commits had already shown followers (test/citus/rebalance caught it). Now such a call
 * waits here, is refused, and the host sends it again to the new worker. No deadlock with the move:
 * it takes the colocated shards' locks in shard id order, the log's first (distributed first, its
 * shards have the lowest ids), so while this call holds the log's it holds nothing else of ours.
 */
export const ds_commit_batch_in: StoredFunction = {
  name: "ds_commit_batch_in",
  text: `CREATE OR REPLACE FUNCTION ds_commit_batch_in(workspace text, items jsonb)
    RETURNS jsonb LANGUAGE plpgsql AS $in$
    DECLARE
      here integer := ${localServer};
      era record;
      shift bigint;
    BEGIN
      ${holdWorkspaceHere("workspace")}
      PERFORM ${keptPlan("ds_shards_here(workspace)")};
      PERFORM set_config('${ONE_BY_ONE}', 'on', true);
      PERFORM set_config('${LOCAL_WORKSPACE_SETTING}', workspace, true);
      ${eraOf}
      IF era.server IS NULL OR era.server <> here THEN
        PERFORM pg_advisory_xact_lock(${FEED_LOCK_CLASS}, hashtext(workspace));
        ${eraOf}
        IF era.server IS NULL OR era.server <> here THEN
          shift := greatest(
            coalesce(era.xact_offset, 0),
            coalesce((SELECT max(e.xact_id) FROM ${tables.events} AS e WHERE e.workspace_id = workspace)::text::bigint, 0)
              + 1 - pg_current_xact_id()::text::bigint
          );
          INSERT INTO ${tables.feedOffsets} AS o (workspace_id, server, xact_offset) VALUES (workspace, here, shift)
            ON CONFLICT (workspace_id) DO UPDATE SET server = excluded.server, xact_offset = excluded.xact_offset;
          PERFORM set_config('${FEED_OFFSET_SETTING}', shift::text, true);
          RETURN ds_commit_batch(items);
        END IF;
      END IF;
      PERFORM set_config('${FEED_OFFSET_SETTING}', era.xact_offset::text, true);
      RETURN ds_commit_batch(items);
    END
    $in$`
}
