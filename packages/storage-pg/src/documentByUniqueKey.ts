import type { Collection, StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { documentColumns, type DocumentRow, toStoredDocument } from "./internal/documentRow.js"
import type { DocumentTableMap } from "./documentTableMap.js"

/** The document holding a unique key, by the table's `_unique_key` index (only live documents hold one). */
export const documentByUniqueKey =
  (sql: SqlClient, tableMap: DocumentTableMap) =>
  (collection: Collection, workspaceId: string, uniqueKey: string): Effect.Effect<StoredDocument | null, SqlError> =>
    Effect.suspend(() =>
      Effect.map(
        sql.unsafe<DocumentRow>(
          `SELECT ${documentColumns} FROM ${tableMap.table(collection)} WHERE workspace_id = $1 AND unique_key = $2`,
          [workspaceId, uniqueKey]
        ),
        ([row]) => (row === undefined ? null : toStoredDocument(collection, workspaceId, row))
      )
    )
