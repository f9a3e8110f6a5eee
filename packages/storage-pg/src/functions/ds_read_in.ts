import { holdWorkspaceHere } from "./ds_workspace_here.js"
import type { StoredFunction } from "./StoredFunction.js"
import { shardOf } from "./workspaceRows.js"

/**
 * A read of one workspace's rows, run on the worker holding it (Citus only; never called on one
 * server). `query` names each table it reads as `{ds_contacts}`, listed in `names`, and its k-th
 * parameter as `$1[k]`, an element of `params` (text, cast where the query uses it: readOnWorker.ts
 * writes it so); the function names the workspace's shard of each table instead and runs it there
 * with PostgreSQL's own planner, as the commit functions write (workspaceRows.ts): through Citus the
 * same read costs its planner on the coordinator and again on the worker. The answer is the rows as
 * one json array, since Citus delegates a call only in the select list: json, not jsonb, which
 * writes the rows' text once instead of building a jsonb value first (a page of 25 contacts, 115
 * against 61 µs on PostgreSQL 15).
 *
 * As ds_commit_batch_in, it first holds the workspace here (ds_workspace_here.ts): a move cannot
 * take the shards away while the read runs, and a call that reached a worker the workspace has
 * left is refused, to be sent again where it lives. The text comes from the host's own code
 * (readOnWorker.ts), never from a request; the function can do nothing its caller could not do with
 * the same SQL.
 */
export const ds_read_in: StoredFunction = {
  name: "ds_read_in",
  text: `CREATE OR REPLACE FUNCTION ds_read_in(workspace text, query text, names text[], params text[])
    RETURNS json LANGUAGE plpgsql AS $in$
    DECLARE
      rendered text := query;
      name text;
      answer json;
    BEGIN
      ${holdWorkspaceHere("workspace")}
      FOREACH name IN ARRAY names LOOP
        rendered := replace(rendered, '{' || name || '}', quote_ident(${shardOf("name", "workspace")}));
      END LOOP;
      EXECUTE 'SELECT coalesce(json_agg(r), ''[]'') FROM (' || rendered || ') AS r' INTO answer USING params;
      RETURN answer;
    END
    $in$`
}
