import { workspaceWriters } from "../feedBound.js"
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
 */
export const ds_feed_bound_in: StoredFunction = {
  name: "ds_feed_bound_in",
  text: `CREATE OR REPLACE FUNCTION ds_feed_bound_in(workspace text)
    RETURNS jsonb LANGUAGE plpgsql AS $in$
    DECLARE
      answer jsonb;
    BEGIN
      PERFORM ds_workspace_here(workspace);
      WITH ${workspaceWriters("workspace")}
      SELECT jsonb_build_object('below', bound.below::text, 'ended', bound.ended) INTO answer FROM bound;
      RETURN answer;
    END
    $in$`
}
