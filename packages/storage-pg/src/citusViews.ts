import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import { HERE_LOCK_CLASS, HERE_PAUSED_SCHEMA, HERE_SCHEMA_PREFIX } from "./functions/ds_shards_here.js"

/**
 * What migrate does with the `here_` views of the Citus nodes (functions/ds_shards_here.ts). A view
 * depends on its shard, so a migration that drops or retypes a column of a table would fail on a
 * node holding one, and a column it adds would not show in it.
 *
 * - Before the first pending migration, `pause`: on every node, once the commits using the views
 *   have ended (the lock they hold shared, taken exclusively), a marker schema tells the next ones
 *   to leave the views alone, and every schema of views is dropped. Until the resume the commits
 *   write the shards by EXECUTE, as they did before the views.
 * - After migrate's transaction, whatever it did, `resume`: the marker and the views of every
 *   generation but the current one are dropped, the latter once the stored functions naming them
 *   are gone (the new texts are in place only once migrate commits). A host that stops between
 *   the two leaves the marker: the commits stay correct, only slower, until a host migrates again.
 *
 * Each runs on every node, the coordinator too, through Citus's run_command_on_all_nodes, whose
 * connections are not those of migrate's transaction: so the pause runs before the transaction
 * takes any lock a commit could be waiting on.
 */

const onEveryNode = (sql: SqlClient, body: string): Effect.Effect<void, SqlError> =>
  Effect.flatMap(
    sql.unsafe<{ readonly nodeid: number; readonly success: boolean; readonly result: string }>(
      "SELECT nodeid, success, result FROM run_command_on_all_nodes($1)",
      [
        `DO $views$
        DECLARE
          place text;
        BEGIN
          PERFORM set_config('citus.enable_ddl_propagation', 'off', true);
          ${body}
        END
        $views$`
      ]
    ),
    (rows) => {
      const failed = rows.filter((row) => !row.success)
      if (failed.length === 0) return Effect.void
      const message = `the here_ views could not be changed on every node: ${failed.map((row) => `node ${row.nodeid}: ${row.result}`).join("; ")}`
      return Effect.fail(new SqlError({ reason: new UnknownError({ cause: new Error(message), message, operation: "migrate" }) }))
    }
  )

/** The schemas of views that `dropped` (a condition on `n.nspname`) selects, dropped. */
const dropSchemas = (dropped: string) =>
  `FOR place IN SELECT n.nspname FROM pg_namespace AS n WHERE ${dropped} LOOP
            EXECUTE format('DROP SCHEMA %I CASCADE', place);
          END LOOP;`

const ofViews = `starts_with(n.nspname, '${HERE_SCHEMA_PREFIX}') AND n.nspname <> '${HERE_PAUSED_SCHEMA}'`

/** Marks every node paused and drops its views. */
export const pauseHereViews = (sql: SqlClient): Effect.Effect<void, SqlError> =>
  onEveryNode(
    sql,
    `PERFORM pg_advisory_xact_lock(${HERE_LOCK_CLASS}, 0);
          CREATE SCHEMA IF NOT EXISTS ${HERE_PAUSED_SCHEMA};
          ${dropSchemas(ofViews)}`
  )

/**
 * Drops the marker, and every schema of views but those of `generation`; of none when it is
 * undefined (a host whose stored functions are not the database's). Takes the lock only when there
 * is something to drop, since every migrate ends with it.
 */
export const resumeHereViews = (sql: SqlClient, generation: string | undefined): Effect.Effect<void, SqlError> => {
  const dropped =
    generation === undefined
      ? `n.nspname = '${HERE_PAUSED_SCHEMA}'`
      : `starts_with(n.nspname, '${HERE_SCHEMA_PREFIX}') AND NOT starts_with(n.nspname, '${HERE_SCHEMA_PREFIX}${generation}_')`
  return onEveryNode(
    sql,
    `IF EXISTS (SELECT 1 FROM pg_namespace AS n WHERE ${dropped}) THEN
            PERFORM pg_advisory_xact_lock(${HERE_LOCK_CLASS}, 0);
            ${dropSchemas(dropped)}
          END IF;`
  )
}
