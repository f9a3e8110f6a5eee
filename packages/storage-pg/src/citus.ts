import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { FEED_OFFSET_SETTING, feedKeyDefault } from "./internal/feedOffset.js"
import { tables } from "./tables.js"

/**
 * On a Citus coordinator, every table that holds a `workspace_id` is distributed by it, all of them
 * colocated with the log, so one workspace's rows (events, documents, words, figures) live on one
 * worker and a statement naming the workspace runs there alone. Tables with no workspace (the
 * migrations' and stored functions' bookkeeping) stay on the coordinator: only migrate reads them.
 * migrate.ts calls it only on a database that runs Citus (isCitus).
 *
 * It runs in migrate's transaction after the migrations, and again after every later migrate, so
 * a table a later migration or a plug-in adds is distributed the first time a host migrates.
 *
 * Citus refuses a primary key or unique constraint without the distribution column, so those of
 * ds_events and ds_streams are remade with `workspace_id` in front before they are distributed.
 * What they guarded stays guarded per workspace: a stream and its versions belong to one
 * workspace, and the log's sequence is an identity (Citus gives each node its own range).
 */
export const distributeOnCitus = (sql: SqlClient): Effect.Effect<ReadonlyArray<string>, SqlError> =>
  Effect.gen(function* () {
    // Triggers on distributed tables (search words, figure totals) touch only rows of the same
    // workspace, so of colocated shards on the same worker: the case Citus calls unsafe only
    // because it cannot check it.
    yield* sql.unsafe("SET LOCAL citus.enable_unsafe_triggers = on")
    // The statements below run in one transaction with the migrations; creating shards over one
    // connection per worker lets that transaction see what it made.
    yield* sql.unsafe("SET LOCAL citus.multi_shard_modify_mode = 'sequential'")
    // The host tells the feed's listeners instead (citusCommits.ts): this trigger's NOTIFY would
    // sound on a worker, and is refused in a transaction that a distributed commit prepares.
    // Dropped first: distributing a log that holds events copies them into the shards, which
    // would fire it there (an installation distributed with its rows).
    yield* sql.unsafe(`DROP TRIGGER IF EXISTS ds_events_feed_notify ON ${tables.events}`)
    const pending = yield* sql.unsafe<{ readonly name: string }>(
      `SELECT c.relname AS name FROM pg_class AS c
       JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped
       WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
         AND NOT EXISTS (SELECT 1 FROM pg_dist_partition AS d WHERE d.logicalrelid = c.oid)
       ORDER BY c.relname <> '${tables.events}', c.relname`
    )
    for (const { name } of pending) {
      yield* keysLedByWorkspace(sql, name)
      const colocated = name === tables.events ? "'none'" : `'${tables.events}'`
      yield* sql.unsafe(`SELECT create_distributed_table('${name}', 'workspace_id', colocate_with => ${colocated})`)
    }
    // The feed's key takes the offset the commit set (internal/feedOffset.ts); altered only when it
    // does not yet, since ALTER TABLE would stop every commit while each host migrates.
    const keyed = yield* sql.unsafe<{ readonly keyed: boolean }>(
      `SELECT coalesce(pg_get_expr(d.adbin, d.adrelid) LIKE '%${FEED_OFFSET_SETTING}%', false) AS keyed
       FROM pg_attribute AS a LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE a.attrelid = '${tables.events}'::regclass AND a.attname = 'xact_id'`
    )
    if (keyed[0]?.keyed !== true) {
      yield* sql.unsafe(`ALTER TABLE ${tables.events} ALTER COLUMN xact_id SET DEFAULT ${feedKeyDefault}`)
    }
    return pending.map(({ name }) => name)
  })

/**
 * After the stored functions are applied: every dealstream function is made known to the workers
 * (a delegated call runs there, and calls the others by name), and each `…_in(workspace, …)`
 * function is delegated by its workspace to the worker holding it, colocated with the log. Citus
 * carries later CREATE OR REPLACE of these functions to the workers itself.
 */
export const distributeFunctionsOnCitus = (sql: SqlClient): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    // Citus propagates a new function by itself, without a distribution argument: an `_in`
    // function is taken up again until it has one.
    const pending = yield* sql.unsafe<{ readonly signature: string; readonly name: string }>(
      `SELECT p.oid::regprocedure::text AS signature, p.proname AS name FROM pg_proc AS p
       LEFT JOIN pg_dist_object AS o ON o.classid = 'pg_proc'::regclass AND o.objid = p.oid
       WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE 'ds\\_%'
         AND (o.objid IS NULL OR (p.proname LIKE '%\\_in' AND o.distribution_argument_index IS NULL))
       ORDER BY 2`
    )
    for (const { name, signature } of pending) {
      yield* name.endsWith("_in")
        ? sql.unsafe(`SELECT create_distributed_function('${signature}', 'workspace', colocate_with := '${tables.events}')`)
        : sql.unsafe(`SELECT create_distributed_function('${signature}')`)
    }
  })

/** Whether this database runs Citus (its extension is created in it). */
export const isCitus = (sql: SqlClient): Effect.Effect<boolean, SqlError> =>
  Effect.map(
    sql.unsafe<{ readonly found: boolean }>("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS found"),
    (rows) => rows[0]?.found === true
  )

/** Remakes each primary key and unique constraint of `table` that lacks workspace_id with it in front. */
const keysLedByWorkspace = (sql: SqlClient, table: string): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    const keys = yield* sql.unsafe<{ readonly name: string; readonly kind: string; readonly columns: string }>(
      `SELECT k.conname AS name, k.contype AS kind,
         string_agg(quote_ident(a.attname), ', ' ORDER BY u.n) AS columns
       FROM pg_constraint AS k
       CROSS JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(attnum, n)
       JOIN pg_attribute AS a ON a.attrelid = k.conrelid AND a.attnum = u.attnum
       WHERE k.conrelid = '${table}'::regclass AND k.contype IN ('p', 'u')
       GROUP BY k.conname, k.contype
       HAVING NOT bool_or(a.attname = 'workspace_id')`
    )
    for (const key of keys) {
      const kind = key.kind === "p" ? "PRIMARY KEY" : "UNIQUE"
      yield* sql.unsafe(`ALTER TABLE ${table} DROP CONSTRAINT ${key.name}`)
      yield* sql.unsafe(`ALTER TABLE ${table} ADD CONSTRAINT ${key.name} ${kind} (workspace_id, ${key.columns})`)
    }
  })
