import { type Cause, Deferred, Effect, Exit, Queue, type Scope, Stream } from "effect"
import type { StorageUnavailable, ValidationError } from "../../errors.js"
import { encodeFeedCursor } from "../../feed/cursor.js"
import type { JsonObject } from "../../json.js"
import type { ListParams } from "../../query/parseListQuery.js"
import type { StorageService } from "../../storage/Storage.js"
import type { Page, RequestContext } from "../contract/Engine.js"
import { ListPageMax } from "./listPage.js"

/**
 * Records per read of an export, ten times the API's largest page: each statement (and each write
 * of its lines to the client) costs the host and PostgreSQL a round trip of system calls whatever
 * its size, which at 100 rows was most of the host's time (bench/ANALYSIS.md, issue 34).
 */
const PAGE = 1000
/** Pages read ahead of the client: what an export holds in memory, whatever its size. */
const AHEAD = 1

/** What GET /v1/<records>/export answers: the feed cursor of its state, then every record in it. */
export interface RecordExport<A> {
  /** The change feed cursor of the state the records come from (`GET /v1/events?after=`); null before any event. */
  readonly cursor: string | null
  /** The records as their list shows them, a page at a time, each page as `encode` made it. */
  readonly pages: Stream.Stream<A, ValidationError | StorageUnavailable>
}

/**
 * Every live record a list with these parameters would show, page after page, all from one state of
 * the storage (storage.snapshot), in id order: the list's own filters and `filter` apply, `limit`,
 * `cursor` and `sort` do not (the records come in the list's own order, created_at then id, the
 * order the list pages by). A bad parameter fails here, before anything is answered; the
 * records then come as the client takes them, at most a few pages ahead, so memory stays bounded
 * however many there are. The snapshot lasts until the last page is read, or the scope closes
 * (the client went away). Each page is encoded (`encode`: its bytes for the client) as soon as it
 * is read, so that what waits for the client is the bytes, not the records' objects: an export's
 * garbage then dies young, and the host's memory grows less while it streams.
 */
export const exportRecords = <A>(
  storage: StorageService,
  ctx: RequestContext,
  list: (ctx: RequestContext, params: ListParams) => Effect.Effect<Page, ValidationError | StorageUnavailable>,
  params: ListParams,
  encode: (rows: ReadonlyArray<JsonObject>) => A
): Effect.Effect<RecordExport<A>, ValidationError | StorageUnavailable, Scope.Scope> =>
  Effect.gen(function* () {
    const { cursor: _cursor, limit: _limit, sort: _sort, ...filters } = params
    const started = yield* Deferred.make<string | null, ValidationError | StorageUnavailable>()
    const pages = yield* Queue.bounded<A, ValidationError | StorageUnavailable | Cause.Done>(AHEAD)
    // One page: read, encoded, offered; only its cursor is kept for the next read, so that the
    // page's records are garbage before the next read waits for the storage.
    const exportPage = (next: string | null) =>
      Effect.flatMap(
        Effect.provideService(
          list(ctx, { ...filters, limit: String(PAGE), ...(next === null ? {} : { cursor: next }) }),
          ListPageMax,
          PAGE
        ),
        (page) =>
          page.data.length > 0 ? Effect.as(Queue.offer(pages, encode(page.data)), page.next_cursor) : Effect.succeed(page.next_cursor)
      )
    const read = storage.snapshot(ctx.workspaceId, (through) =>
      Effect.gen(function* () {
        let next = yield* exportPage(null)
        // The first page was read: the parameters were good, and the answer may start.
        yield* Deferred.succeed(started, through === null ? null : encodeFeedCursor(ctx.workspaceId, through))
        while (next !== null) next = yield* exportPage(next)
      })
    )
    yield* Effect.forkScoped(
      Effect.onExit(read, (exit) =>
        Exit.isSuccess(exit)
          ? Queue.end(pages)
          : Effect.andThen(Deferred.failCause(started, exit.cause), Queue.failCause(pages, exit.cause))
      )
    )
    const cursor = yield* Deferred.await(started)
    return { cursor, pages: Stream.fromQueue(pages) }
  })
