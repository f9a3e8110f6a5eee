import { createHash } from "node:crypto"
import { tables } from "../tables.js"
import type { StoredFunction } from "./StoredFunction.js"
import { hereName, VIEWED_WORKSPACE_SETTING } from "./workspaceRows.js"

/**
 * The advisory lock class of the `_here` views: key 0, taken shared by every commit that uses them
 * and exclusively by whoever drops them (citusViews.ts); key hashint8(shard), by a commit making a
 * shard group's views.
 */
export const HERE_LOCK_CLASS = 1_717_920_131

/** The prefix of every schema of `_here` views. */
export const HERE_SCHEMA_PREFIX = "ds_here_"

/** A schema whose presence on a node tells commits there to leave the views alone (citusViews.ts). */
export const HERE_PAUSED_SCHEMA = "ds_here_paused"

/**
 * On a Citus worker, the views through which ds_commit_batch_in's statements reach its workspace's
 * shards by a name that does not change from shard to shard (workspaceRows.ts): `here_<table>`, a
 * view of the shard table, one schema per shard group, `ds_here_<generation>_<log shard id>`. The
 * function puts the group's schema first on the transaction's search_path, so static SQL naming
 * `here_ds_contacts` keeps one plan per statement in PL/pgSQL, as on plain PostgreSQL, while an
 * EXECUTE of the shard's own name is parsed and planned at every call (bench/ANALYSIS.md, issue 31).
 * A plan is made again when the path changes, so it pays only while a connection keeps serving one
 * shard group: the host keeps its commit connections per shard group (citusWorkers.ts). Then it
 * names the workspace in VIEWED_WORKSPACE_SETTING, which the statements test.
 *
 * The views are made the first time a commit of the group runs on this node, under an advisory
 * lock so that two commits make them once; the last view made is the sign that all were. Citus
 * drops a shard that leaves a worker with CASCADE (DROP_REGULAR_TABLE_COMMAND in Citus's
 * coordinator_protocol.h), which takes its views with it, so a group that comes back gets new ones.
 * A view lists its table's columns when it is made, and would stop a migration from dropping or
 * retyping one: migrate pauses the views while it runs (citusViews.ts), and the commits meanwhile
 * write the shards by EXECUTE. `generation` is a hash of the commit functions' texts, so functions
 * that write other tables or columns make views of their own.
 */
export const ds_shards_here = (viewed: ReadonlyArray<string>, generation: string): StoredFunction => {
  const names = [...new Set(viewed)].sort()
  const last = hereName(names.at(-1) ?? tables.events)
  const viewExists = `SELECT 1 FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
          WHERE n.nspname = place AND c.relname = '${last}'`
  return {
    name: "ds_shards_here",
    text: `CREATE OR REPLACE FUNCTION ds_shards_here(workspace text)
    RETURNS void LANGUAGE plpgsql AS $here$
    DECLARE
      shard bigint := get_shard_id_for_distribution_column('${tables.events}', workspace);
      place text := '${HERE_SCHEMA_PREFIX}${generation}_' || shard;
      viewed text;
      propagating text;
      paused boolean;
      ready boolean;
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(${HERE_LOCK_CLASS}, 0);
      -- Asked of the catalog by queries, each with a snapshot taken then, never of this backend's
      -- cache (to_regclass): an advisory lock does not refresh it, so after waiting for one the
      -- cache can still show views a pause dropped meanwhile, or miss views another commit made.
      -- Trusted, the first sent the statements to views that are gone; the second dropped views
      -- under that commit's next, a deadlock the feed property on Citus caught (test/citus/hereViews
      -- holds both).
      SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace AS n WHERE n.nspname = '${HERE_PAUSED_SCHEMA}'),
        EXISTS (${viewExists})
        INTO paused, ready;
      IF paused THEN
        RETURN;
      END IF;
      IF NOT ready THEN
        PERFORM pg_advisory_xact_lock(${HERE_LOCK_CLASS}, hashint8(shard));
        IF NOT EXISTS (${viewExists}) THEN
          -- Objects of this node alone: Citus must not carry them to the others.
          propagating := current_setting('citus.enable_ddl_propagation');
          PERFORM set_config('citus.enable_ddl_propagation', 'off', true);
          EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', place);
          EXECUTE format('CREATE SCHEMA %I', place);
          FOREACH viewed IN ARRAY ARRAY[${names.map((name) => `'${name}'`).join(", ")}]::text[] LOOP
            EXECUTE format('CREATE VIEW %I.%I AS SELECT * FROM %I', place, '${hereName("")}' || viewed,
              viewed || '_' || get_shard_id_for_distribution_column(viewed, workspace));
          END LOOP;
          PERFORM set_config('citus.enable_ddl_propagation', propagating, true);
        END IF;
      END IF;
      PERFORM set_config('search_path', format('%I, ', place) || current_setting('search_path'), true);
      PERFORM set_config('${VIEWED_WORKSPACE_SETTING}', workspace, true);
    END
    $here$`
  }
}

/** Every table the texts name through a `_here` view. */
export const viewedIn = (texts: ReadonlyArray<string>): ReadonlyArray<string> => {
  const named = new RegExp(`\\b${hereName("")}([a-z][a-z0-9_]*)`, "g")
  return texts.flatMap((text) => [...text.matchAll(named)].map((match) => match[1]!))
}

/** A short hash of what the views must follow. */
export const generationOf = (texts: ReadonlyArray<string>): string =>
  createHash("sha256").update(texts.join("\n")).digest("hex").slice(0, 10)
