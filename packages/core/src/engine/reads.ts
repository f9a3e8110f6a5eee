import { Effect } from "effect"
import type { JsonObject } from "../json.js"
import type { DocumentQuery, Expr, SortSpec } from "../query/ast.js"
import type { FieldCatalog } from "../query/fields.js"
import type { Collection, StoredDocument } from "../storage/documents.js"
import type { EngineDeps } from "./deps.js"

const BATCH = 500

/** Every live document matching `where`, read in keyset batches so no single read is unbounded. */
export const queryAll = (
  deps: EngineDeps,
  collection: Collection,
  workspaceId: string,
  where: Expr,
  sort: SortSpec = { field: { name: "id", type: "id" }, direction: "asc" }
) =>
  Effect.gen(function*() {
    const out: Array<StoredDocument> = []
    let after: DocumentQuery["after"] = null
    for (;;) {
      const rows: ReadonlyArray<StoredDocument> = yield* deps.storage.queryDocuments(collection, workspaceId, {
        where,
        scope: "live",
        sort,
        after,
        limit: BATCH
      })
      out.push(...rows)
      const last: StoredDocument | undefined = rows[rows.length - 1]
      if (rows.length < BATCH || last === undefined) return out
      const value: JsonObject[string] | undefined = last.data[sort.field.name]
      after = { value: typeof value === "object" || value === undefined ? null : value, id: last.id }
    }
  })

/** Whether any live document matches. */
export const existsWhere = (deps: EngineDeps, collection: Collection, workspaceId: string, where: Expr) =>
  Effect.map(
    deps.storage.queryDocuments(collection, workspaceId, {
      where,
      scope: "live",
      sort: { field: { name: "id", type: "id" }, direction: "asc" },
      after: null,
      limit: 1
    }),
    (rows) => rows.length > 0
  )

/** Drops keys that are neither standard fields nor currently defined custom fields. */
export const visibleFields = (data: JsonObject, catalog: FieldCatalog): JsonObject => {
  const out: Record<string, JsonObject[string]> = {}
  for (const [key, value] of Object.entries(data)) {
    if (catalog.has(key)) out[key] = value
  }
  return out
}

export const idField = { name: "id", type: "id" } as const
