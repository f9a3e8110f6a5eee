import type { ClaimOptions, StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { documentColumns, type DocumentRow, toStoredDocument } from "./internal/documentRow.js"
import { isPending, nextAttemptAt } from "./internal/queueSql.js"
import { documentTables } from "./tables.js"

/**
 * One statement that picks and leases: the CTE locks up to `limit` due, pending, unleased rows in
 * due order, and the UPDATE leases exactly those.
 * - SKIP LOCKED: rows another claimer (or a commit) has locked are passed over, not waited for,
 *   so concurrent claimers take disjoint rows and never block each other.
 * - A row that another claimer leased and committed after this statement's snapshot is locked
 *   anyway, and FOR UPDATE re-checks the WHERE on its newest version (READ COMMITTED): its
 *   lease_until is now in the future, so it drops out. No delivery is leased twice at once.
 * - MATERIALIZED runs the locking SELECT once: as a plain `IN (SELECT … LIMIT)` sub-query the
 *   planner may rescan it (say on the inner side of a join), and a rescan of a SKIP LOCKED scan
 *   can pick other rows, leasing more than `limit`.
 * The rows come back in no particular order (RETURNING follows the update), hence the sort.
 */
export const claimSql = `WITH due AS MATERIALIZED (
  SELECT workspace_id, id FROM ${documentTables.delivery}
  WHERE ${isPending} AND ${nextAttemptAt} <= $1::text AND (lease_until IS NULL OR lease_until < $1::text)
  ORDER BY ${nextAttemptAt}
  LIMIT $2
  FOR UPDATE SKIP LOCKED
)
UPDATE ${documentTables.delivery} SET lease_owner = $3, lease_until = $4
WHERE (workspace_id, id) IN (SELECT workspace_id, id FROM due)
RETURNING workspace_id, ${documentColumns}`

interface ClaimedRow extends DocumentRow {
  readonly workspace_id: string
}

const dueOf = (document: StoredDocument) => String(document.data["next_attempt_at"])

export const claimDeliveries = (sql: SqlClient) =>
(options: ClaimOptions): Effect.Effect<ReadonlyArray<StoredDocument>, SqlError> =>
  Effect.map(
    sql.unsafe<ClaimedRow>(claimSql, [options.now, Math.max(0, Math.floor(options.limit)), options.owner, options.leaseUntil]),
    (rows) =>
      rows
        .map((row) => toStoredDocument("delivery", row.workspace_id, row))
        .sort((a, b) => dueOf(a) < dueOf(b) ? -1 : dueOf(a) > dueOf(b) ? 1 : 0)
  )
