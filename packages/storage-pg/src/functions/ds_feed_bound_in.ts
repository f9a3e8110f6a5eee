import { workspaceWriters } from "../feedBound.js"
import { eraText, localServer } from "../internal/feedOffset.js"
import { tables } from "../tables.js"
import { checkWorkspaceHere } from "./ds_workspace_here.js"
import type { StoredFunction } from "./StoredFunction.js"

/**
 * The feed's bound for one workspace (feedBound.ts), computed where the workspace's commits run.
 * On one server readFeed computes it inside its own statement. On Citus the commits run on the
 * worker holding the workspace (ds_commit_batch_in), with that worker's transaction ids and feed
 * marks, so the bound must be that worker's: Citus delegates this function there by its first
 * argument (citus.ts), and readFeed then reads below the answer (citusFeed.ts); run anywhere else
 * it refuses (ds_workspace_here.ts). The same WITH list,
 * so the rule is written once. One jsonb value, not a row: Citus delegates a call only in the
 * select list (`SELECT ds_feed_bound_in($1)`), never a function scan in FROM.
 *
 * The bound is in the feed's keys, the worker's ids plus the workspace's offset
 * (internal/feedOffset.ts), and says the offset's era it was taken in, which the page read checks.
 * Where the offset was set for another worker (the workspace moved here and has not committed here
 * yet), or never (an installation distributed with its log: its events have the single server's
 * ids, and no commit has run on Citus since), the worker's ids say nothing of the stored keys; the bound is then just above the highest
 * key stored, and the first commit here sets an offset that puts its keys above that. The highest
 * key is read before the era, each statement on a snapshot of its own: an era still stale when read
 * second was stale when the highest key was read, so that key is not one of this worker's commits.
 */
export const ds_feed_bound_in: StoredFunction = {
  name: "ds_feed_bound_in",
  text: `CREATE OR REPLACE FUNCTION ds_feed_bound_in(workspace text)
    RETURNS jsonb LANGUAGE plpgsql AS $in$
    DECLARE
      answer jsonb;
      top bigint;
      era record;
    BEGIN
      ${checkWorkspaceHere("workspace")}
      SELECT o.server, o.xact_offset INTO era FROM ${tables.feedOffsets} AS o WHERE o.workspace_id = workspace;
      IF NOT FOUND OR era.server <> ${localServer} THEN
        top := coalesce((SELECT max(e.xact_id) FROM ${tables.events} AS e WHERE e.workspace_id = workspace)::text::bigint, 0);
        SELECT o.server, o.xact_offset INTO era FROM ${tables.feedOffsets} AS o WHERE o.workspace_id = workspace;
        IF NOT FOUND OR era.server <> ${localServer} THEN
          RETURN jsonb_build_object('below', (top + 1)::text, 'ended', false, 'era', ${eraText("era")});
        END IF;
        -- The first commit here set the offset in between: the bound as below, on this era.
      END IF;
      WITH ${workspaceWriters("workspace")}
      SELECT jsonb_build_object(
        'below', (bound.below::text::bigint + coalesce(era.xact_offset, 0))::text,
        'ended', bound.ended,
        'era', ${eraText("era")}
      ) INTO answer FROM bound;
      RETURN answer;
    END
    $in$`
}
