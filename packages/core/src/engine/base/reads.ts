import { Effect } from "effect"
import type { JsonObject } from "../../json.js"
import type { DocumentQuery, Expr, FieldRef, SortSpec } from "../../query/ast.js"
import type { FieldCatalog, FieldInfo } from "../../query/fields.js"
import { isRecordTime } from "../../field/table.js"
import { scalarOf } from "../../query/fieldValue.js"
import { sortValueOf } from "../../query/sortKeys.js"
import type { Collection, StoredDocument } from "../../storage/documents.js"
import type { StorageService } from "../../storage/Storage.js"
import { LinkGuards } from "./linkGuards.js"

const BATCH = 500

/** What the reads here need of the engine. */
type Reader = { readonly storage: StorageService }

/** Every live document matching `where` (or in the trash, by `scope`), read in keyset batches so no single read is unbounded. */
export const queryAll = (
  deps: Reader,
  collection: Collection,
  workspaceId: string,
  where: Expr,
  sort: SortSpec = { field: { name: "id", type: "id" }, direction: "asc" },
  scope: DocumentQuery["scope"] = "live"
) =>
  Effect.gen(function* () {
    const out: Array<StoredDocument> = []
    let after: DocumentQuery["after"] = null
    for (;;) {
      const rows: ReadonlyArray<StoredDocument> = yield* deps.storage.queryDocuments(collection, workspaceId, {
        where,
        scope,
        sort,
        after,
        limit: BATCH
      })
      out.push(...rows)
      const last: StoredDocument | undefined = rows[rows.length - 1]
      if (rows.length < BATCH || last === undefined) return out
      after = { value: sortValueOf(last.data, sort.field), id: last.id }
    }
  })

/**
 * The live documents of `collection` whose `field` names any of `ids` (an id list holding one, or an
 * id equal to one), in one query however many ids: the derived links of a page of records.
 */
export const liveNaming = (deps: Reader, collection: Collection, workspaceId: string, field: FieldRef, ids: ReadonlyArray<string>) => {
  if (ids.length === 0) return Effect.succeed<ReadonlyArray<StoredDocument>>([])
  const naming = (value: string): Expr =>
    field.type === "id_array" ? { _tag: "HasElement", field, value } : { _tag: "Compare", field, op: "eq", value }
  return queryAll(deps, collection, workspaceId, ids.length === 1 ? naming(ids[0]!) : { _tag: "Or", exprs: ids.map(naming) })
}

/** Which of these ids name records of `collection` in the workspace that are live, and which are in its trash: one read. */
export const recordStates = (deps: Reader, collection: Collection, workspaceId: string, ids: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const guards = yield* LinkGuards
    const docs = ids.length === 0 ? [] : yield* deps.storage.getDocuments(collection, workspaceId, [...new Set(ids)])
    const live = docs.filter((doc) => doc.deletedAt === null)
    // Inside a write's decision, the records found live are checked again by its commit (linkGuards.ts).
    if (guards !== null) for (const doc of live) guards.add(doc.id, doc.version)
    return { live: new Set(live.map((doc) => doc.id)), trashed: new Set(docs.filter((doc) => doc.deletedAt !== null).map((doc) => doc.id)) }
  })

/** Whether any document matches, among the live ones or those in the trash. */
export const existsWhere = (
  deps: Reader,
  collection: Collection,
  workspaceId: string,
  where: Expr,
  scope: DocumentQuery["scope"] = "live"
) =>
  Effect.map(
    deps.storage.queryDocuments(collection, workspaceId, {
      where,
      scope,
      sort: { field: { name: "id", type: "id" }, direction: "asc" },
      after: null,
      limit: 1
    }),
    (rows) => rows.length > 0
  )

/**
 * The record as the API shows it: keys that are neither standard fields nor currently defined custom
 * fields are dropped, and a custom value that no longer fits its field's type (the key was deleted
 * and defined again with another type) reads as null, as it does for filters and sorting.
 *
 * Its keys come in one order whatever the storage gave (PostgreSQL's jsonb orders keys by length):
 * the catalog's standard fields in field-table order, then its custom fields (by key), then the
 * standard timestamps: field/recordOrder.ts's order, kept here without a second pass. Derived fields
 * are the views' to add after them.
 */
export const visibleFields = (data: JsonObject, catalog: FieldCatalog): JsonObject => {
  const out: Record<string, JsonObject[string]> = {}
  const put = (info: FieldInfo) => {
    const value = data[info.name]
    if (value === undefined || !Object.hasOwn(data, info.name)) return
    out[info.name] = info.custom && value !== null ? scalarOf(data, info) : value
  }
  for (const info of catalog.values()) if (!isTimestamp(info)) put(info)
  for (const info of catalog.values()) if (isTimestamp(info)) put(info)
  return out
}

const isTimestamp = (info: FieldInfo) => !info.custom && isRecordTime(info.name)
