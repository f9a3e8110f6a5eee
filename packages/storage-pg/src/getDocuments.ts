import type { Collection, StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { documentColumns, type DocumentRow, toStoredDocument } from "./internal/documentRow.js"
import type { DocumentTableMap } from "./documentTableMap.js"

/** Several documents by id in one primary-key lookup (`= ANY` of one array parameter). */
export const getDocuments =
  (sql: SqlClient, tableMap: DocumentTableMap) =>
  (collection: Collection, workspaceId: string, ids: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<StoredDocument>, SqlError> =>
    Effect.suspend(() => {
      const table = tableMap.table(collection)
      return ids.length === 0
        ? Effect.succeed([])
        : Effect.map(
            sql.unsafe<DocumentRow>(`SELECT ${documentColumns} FROM ${table} WHERE workspace_id = $1 AND id = ANY($2::text[])`, [
              workspaceId,
              [...new Set(ids)]
            ]),
            (rows) => rows.map((row) => toStoredDocument(collection, workspaceId, row))
          )
    })
