import { Context, Effect, Result } from "effect"
import type { StorageUnavailable, ValidationError } from "../../errors.js"
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

/** How a list's page is read when it needs more of the storage than the documents. */
export interface PageRead<A> {
  readonly read: (query: DocumentQuery) => Effect.Effect<A, StorageUnavailable>
  /** The documents of the answer, in the query's order. */
  readonly documents: (answer: A) => ReadonlyArray<StoredDocument>
}

/** A page cut from a read, with the whole answer of the read (null when `admit` refused to read). */
export interface ReadPage<A> {
  readonly rows: ReadonlyArray<StoredDocument>
  readonly next_cursor: string | null
  readonly answer: A | null
}

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
  admit?: Effect.Effect<boolean, StorageUnavailable>
) =>
  listPageRead(params, spec, admit, {
    read: (query) => deps.storage.queryDocuments(collection, ctx.workspaceId, query),
    documents: (rows) => rows
  })

/**
 * listPage over a read of the caller's (the contacts' reads the deals naming each contact too). The
 * read's answer comes back with the page, not through a variable the read's callback sets: an
 * export reads a thousand rows a page, and rows stored into an object made before the read waited
 * for PostgreSQL were kept past young-generation collections, so that each page was promoted to the
 * old generation and the host's memory grew by some 230 MB an export of 1,000,000 contacts, 76 MB
 * since (bench/ANALYSIS.md, issue 34).
 */
export const listPageRead = <A>(
  params: ListParams,
  spec: ListSpec,
  admit: Effect.Effect<boolean, StorageUnavailable> | undefined,
  { documents, read }: PageRead<A>
): Effect.Effect<ReadPage<A>, ValidationError | StorageUnavailable> =>
  Effect.gen(function* () {
    const parsed = parseListQuery(yield* storableParams(params), { ...spec, maxLimit: yield* ListPageMax })
    if (Result.isFailure(parsed)) return yield* parsed.failure
    const query = parsed.success
    if (admit !== undefined && !(yield* admit)) return { rows: [], next_cursor: null, answer: null }
    const answer = yield* read({ ...query, limit: query.limit + 1 })
    return { ...paginate(documents(answer), query), answer }
  })
