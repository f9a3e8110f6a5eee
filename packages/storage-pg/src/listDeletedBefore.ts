import type { Collection, ExpiredRecord } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { DocumentTableMap } from "./documentTableMap.js"

/**
 * Soft-deleted records across all workspaces, oldest deletion first. deleted_at is canonical ISO
 * text, so text order is time order. The sweep reads the `_deleted` partial index whole: it holds
 * the trash only, which the purge keeps small.
 */
export const listDeletedBefore =
  (sql: SqlClient, tableMap: DocumentTableMap) =>
  (collection: Collection, cutoff: string, limit: number): Effect.Effect<ReadonlyArray<ExpiredRecord>, SqlError> =>
    Effect.suspend(() =>
      Effect.map(
        sql.unsafe<{ readonly workspace_id: string; readonly id: string }>(
          `SELECT workspace_id, id FROM ${tableMap.table(collection)} ` +
            `WHERE deleted_at IS NOT NULL AND deleted_at <= $1::text ORDER BY deleted_at, workspace_id, id LIMIT $2`,
          [cutoff, Math.max(0, Math.floor(limit))]
        ),
        (rows) => rows.map((row) => ({ workspaceId: row.workspace_id, id: row.id }))
      )
    )
