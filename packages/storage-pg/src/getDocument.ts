import type { Collection, StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { documentColumns, type DocumentRow, toStoredDocument } from "./internal/documentRow.js"
import type { DocumentTableMap } from "./documentTableMap.js"

export const getDocument =
  (sql: SqlClient, tableMap: DocumentTableMap) =>
  (collection: Collection, workspaceId: string, id: string): Effect.Effect<StoredDocument | null, SqlError> =>
    Effect.suspend(() =>
      Effect.map(
        sql.unsafe<DocumentRow>(`SELECT ${documentColumns} FROM ${tableMap.table(collection)} WHERE workspace_id = $1 AND id = $2`, [
          workspaceId,
          id
        ]),
        ([row]) => (row === undefined ? null : toStoredDocument(collection, workspaceId, row))
      )
    )
