import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { isPending } from "./internal/queueSql.js"
import { documentTables } from "./tables.js"

/**
 * Only pending rows can hold a lease: a claim leases pending rows, and the commit that changes a
 * status clears the lease. So the pending partial index (the queue, not the history) finds them.
 */
export const releaseSql = `UPDATE ${documentTables.delivery} SET lease_owner = NULL, lease_until = NULL WHERE ${isPending} AND lease_owner = $1`

export const releaseLeases =
  (sql: SqlClient) =>
  (owner: string): Effect.Effect<void, SqlError> =>
    Effect.asVoid(sql.unsafe(releaseSql, [owner]))
