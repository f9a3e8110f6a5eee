import { type ConsumerCheckpoint, type ConsumerCheckpointsService, type ConsumerKey, ConsumerLeaseLost } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { orUnavailable } from "./errors.js"
import { tables } from "./tables.js"

const table = tables.consumers
const until = "now() + $3 * interval '1 millisecond'"

/**
 * A consumer seen first: its row, leased to us and starting at `from`. Then, for one that exists,
 * the lease taken where it is free, expired or already ours. Two statements rather than one upsert
 * with that condition: Citus refuses a function that is not IMMUTABLE (`now()`) in the WHERE of an
 * INSERT's ON CONFLICT on a distributed table, and takes it in an UPDATE's.
 */
const createSql = `INSERT INTO ${table} (workspace_id, name, checkpoint, lease_owner, lease_until)
  VALUES ($1, $2, $5, $4, ${until})
  ON CONFLICT (workspace_id, name) DO NOTHING
  RETURNING checkpoint, attempts`
const takeSql = `UPDATE ${table} AS c SET lease_owner = $4, lease_until = ${until}
  WHERE c.workspace_id = $1 AND c.name = $2 AND (c.lease_owner IS NULL OR c.lease_until < now() OR c.lease_owner = $4)
  RETURNING checkpoint, attempts`

/**
 * Every step of a holder starts by writing its own row, where it still holds the lease: in the
 * checkpoint's transaction that locks the row first, so a rival's takeover waits for the commit
 * (and then finds the lease renewed), and a holder that lost it writes nothing.
 */
const held = "workspace_id = $1 AND name = $2 AND lease_owner = $4"

const beginSql = `UPDATE ${table} SET attempts = attempts + 1, lease_until = ${until} WHERE ${held} RETURNING attempts`
const advanceSql = `UPDATE ${table} SET checkpoint = $5, attempts = 0, lease_until = ${until} WHERE ${held} RETURNING 1`
const renewSql = `UPDATE ${table} SET lease_until = ${until} WHERE ${held} RETURNING 1`
// $3 (the lease time) is unused but typed: every statement of a holder takes the same four parameters.
const checkSql = `SELECT 1 FROM ${table} WHERE workspace_id = $1 AND name = $2 AND $3::integer IS NOT NULL AND lease_owner = $4`
const releaseSql = `UPDATE ${table} SET lease_owner = NULL, lease_until = NULL WHERE workspace_id = $1 AND name = $2 AND lease_owner = $3`
// A reset revokes the lease: its holder's next write fails, and it reads the checkpoint again.
const resetSql = `INSERT INTO ${table} (workspace_id, name, checkpoint) VALUES ($1, $2, $3)
  ON CONFLICT (workspace_id, name) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, attempts = 0, lease_owner = NULL, lease_until = NULL`
const readSql = `SELECT checkpoint, attempts FROM ${table} WHERE workspace_id = $1 AND name = $2`

const resetAllSql = `UPDATE ${table} SET checkpoint = NULL, attempts = 0, lease_owner = NULL, lease_until = NULL WHERE name = $1`

/**
 * The workspaces with events after $1, in order, at most $2. On PostgreSQL a walk of the feed's
 * index (ds_events_workspace_feed) that steps from one workspace to the next, one descent each,
 * however many events they hold. Citus takes no recursive query over a distributed table; there
 * each worker lists its shards' distinct workspaces from their streams (one row per stream, not per
 * event), and the coordinator merges them: work for a consumer starting or catching a lost signal,
 * not for a request.
 */
const workspacesSql = `WITH RECURSIVE w(id) AS (
    (SELECT workspace_id FROM ${tables.events} WHERE workspace_id > $1 ORDER BY workspace_id LIMIT 1)
    UNION ALL
    SELECT (SELECT e.workspace_id FROM ${tables.events} AS e WHERE e.workspace_id > w.id ORDER BY e.workspace_id LIMIT 1)
    FROM w WHERE w.id IS NOT NULL
  )
  SELECT id FROM w WHERE id IS NOT NULL LIMIT $2`
const workspacesOnCitusSql = `SELECT DISTINCT workspace_id AS id FROM ${tables.streams} WHERE workspace_id > $1 ORDER BY 1 LIMIT $2`

type Row = { readonly checkpoint: string | null; readonly attempts: number }

const checkpointOf = (row: Row): ConsumerCheckpoint => ({ cursor: row.checkpoint, attempts: Number(row.attempts) })

/** Consumers' checkpoints and leases in ds_consumers (migration 0030). */
export const makeConsumerCheckpoints = (sql: SqlClient, citus: boolean): ConsumerCheckpointsService => ({
  acquire: (key, owner, leaseMillis, from) =>
    Effect.gen(function* () {
      const created = yield* orUnavailable(sql.unsafe<Row>(createSql, [key.workspaceId, key.name, leaseMillis, owner, from]))
      const row = created[0] ?? (yield* orUnavailable(sql.unsafe<Row>(takeSql, [key.workspaceId, key.name, leaseMillis, owner])))[0]
      if (row === undefined) return null
      const lost = new ConsumerLeaseLost({ name: key.name, workspaceId: key.workspaceId })
      const write = (statement: string, more: ReadonlyArray<unknown> = []) =>
        Effect.flatMap(
          orUnavailable(sql.unsafe<Record<string, unknown>>(statement, [key.workspaceId, key.name, leaseMillis, owner, ...more])),
          (written) => (written.length === 0 ? Effect.fail(lost) : Effect.succeed(written[0]!))
        )
      yield* Effect.addFinalizer(() => Effect.ignore(sql.unsafe(releaseSql, [key.workspaceId, key.name, owner])))
      return {
        checkpoint: checkpointOf(row),
        begin: Effect.map(write(beginSql), (written) => Number(written["attempts"])),
        advance: (cursor, work) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                yield* write(advanceSql, [cursor])
                // The handler's statements may run in another fiber (the Promise facade): they carry this one's transaction.
                const context = yield* Effect.context<never>()
                return yield* work({
                  execute: (statement, params = []) =>
                    orUnavailable(sql.unsafe<Record<string, unknown>>(statement, params)).pipe(Effect.provideContext(context))
                })
              })
            )
            .pipe(orUnavailable),
        renew: Effect.asVoid(write(renewSql)),
        check: Effect.asVoid(write(checkSql))
      }
    }),
  reset: (key: ConsumerKey, cursor) => Effect.asVoid(orUnavailable(sql.unsafe(resetSql, [key.workspaceId, key.name, cursor]))),
  resetAll: (name) => Effect.asVoid(orUnavailable(sql.unsafe(resetAllSql, [name]))),
  workspaces: (after, limit) =>
    Effect.map(
      orUnavailable(sql.unsafe<{ readonly id: string }>(citus ? workspacesOnCitusSql : workspacesSql, [after ?? "", limit])),
      (rows) => rows.map((row) => row.id)
    ),
  read: (key) =>
    Effect.map(orUnavailable(sql.unsafe<Row>(readSql, [key.workspaceId, key.name])), (rows) =>
      rows[0] === undefined ? null : checkpointOf(rows[0])
    )
})
