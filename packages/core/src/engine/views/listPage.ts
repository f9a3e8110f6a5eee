import { Context, Effect, Result } from "effect"
import type { StorageUnavailable } from "../../errors.js"
import { type ListParams, type ListSpec, pageLimits, paginate, parseListQuery } from "../../query/index.js"
import type { DocumentQuery } from "../../query/ast.js"
import type { Collection, StoredDocument } from "../../storage/documents.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { storableParams } from "../base/storable.js"

/**
 * The largest `limit` a list takes here: the API's 100, unless the engine reads larger pages for
 * itself (views/exportRecords.ts), where fewer statements are what makes it fast.
 */
export const ListPageMax = Context.Reference<number>("@dealstream/core/ListPageMax", { defaultValue: () => pageLimits.max })

/**
 * One page of a list endpoint: the parameters checked and parsed into a query, the query run with
 * one row beyond the limit (it only tells that another page exists), and the page cut with its
 * cursor. `admit`, read once the parameters are known to be valid, may answer an empty page without
 * querying (the deals of a contact that is not live).
 */
export const listPage = (
  deps: EngineDeps,
  ctx: RequestContext,
  collection: Collection,
  params: ListParams,
  spec: ListSpec,
  admit?: Effect.Effect<boolean, StorageUnavailable>,
  /** How the page's rows are read; storage.queryDocuments unless told. */
  read: (query: DocumentQuery) => Effect.Effect<ReadonlyArray<StoredDocument>, StorageUnavailable> = (query) =>
    deps.storage.queryDocuments(collection, ctx.workspaceId, query)
) =>
  Effect.gen(function* () {
    const parsed = parseListQuery(yield* storableParams(params), { ...spec, maxLimit: yield* ListPageMax })
    if (Result.isFailure(parsed)) return yield* parsed.failure
    const query = parsed.success
    if (admit !== undefined && !(yield* admit)) return { rows: [], next_cursor: null }
    const rows = yield* read({ ...query, limit: query.limit + 1 })
    return paginate(rows, query)
  })
