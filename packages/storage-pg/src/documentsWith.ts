import type { Collection, StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { type DocumentRow, documentColumns, toStoredDocument } from "./internal/documentRow.js"
import type { DocumentTableMap } from "./documentTableMap.js"

/** Live documents across workspaces holding a non-null key: a scan, for small collections only. */
export const documentsWith =
  (sql: SqlClient, tableMap: DocumentTableMap) =>
  (collection: Collection, key: string, limit: number): Effect.Effect<ReadonlyArray<StoredDocument>, SqlError> =>
    Effect.suspend(() =>
      Effect.map(
        sql.unsafe<DocumentRow & { readonly workspace_id: string }>(
          `SELECT workspace_id, ${documentColumns} FROM ${tableMap.table(collection)} ` +
            `WHERE deleted_at IS NULL AND jsonb_typeof(data -> $1::text) <> 'null' ORDER BY workspace_id, id LIMIT $2::int`,
          [key, Math.max(0, Math.floor(limit))]
        ),
        (rows) => rows.map((row) => toStoredDocument(collection, row.workspace_id, row))
      )
    )
