import { Effect, Result } from "effect"
import type { Aggregate } from "../../aggregate.js"
import { NotFound, type StorageUnavailable, ValidationError } from "../../errors.js"
import { type HistoryEntry, recordHistory } from "../../history/index.js"
import { decodeCursor, encodeCursor } from "../../query/cursor.js"
import type { FieldCatalog } from "../../query/fields.js"
import { parseLimit } from "../../query/parseLimit.js"
import type { DomainEvent } from "../../storage/events.js"
import type { EngineDeps } from "../base/deps.js"
import type { ListParams, Page, RequestContext } from "../contract/Engine.js"
import { visibleFields } from "../base/reads.js"
import { recordedEvents } from "./recordedEvents.js"
import { storableParams } from "../base/storable.js"

const PARAMS = ["limit", "cursor"]

/**
 * A page of a record's history, oldest first: the record's stream read and folded whole (its
 * version is the position a cursor carries). A soft-deleted record still has one; a purged record's
 * stream is erased, so it has none (404), and no redacted value reappears.
 */
export const historyPage = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  ctx: RequestContext,
  aggregate: Aggregate<C, E, S>,
  id: string,
  params: ListParams,
  catalog: FieldCatalog
): Effect.Effect<Page, NotFound | ValidationError | StorageUnavailable> =>
  Effect.gen(function* () {
    const checked = yield* storableParams(params)
    const unknown = Object.keys(checked).filter((key) => !PARAMS.includes(key))
    if (unknown.length > 0) return yield* ValidationError.of(unknown.map((path) => ({ path, message: "is not a known parameter" })))
    const limit = parseLimit(checked["limit"])
    if (Result.isFailure(limit)) return yield* limit.failure
    const fingerprint = `history:${id}`
    const cursor = checked["cursor"] === undefined ? null : decodeCursor(checked["cursor"], fingerprint)
    if (cursor !== null && Result.isFailure(cursor)) return yield* cursor.failure
    const after = cursor === null ? 0 : Number(cursor.success.value)

    const entries = yield* wholeHistory(deps, ctx, aggregate, id, catalog)
    if (entries.length === 0) return yield* new NotFound({ resource: aggregate.name, id })
    const rows = entries.slice(after, after + limit.success)
    const last = after + rows.length
    return {
      data: rows,
      next_cursor: last < entries.length ? encodeCursor(fingerprint, { value: last, id }) : null
    }
  })

/**
 * Every entry of a record's history, oldest first (none for a purged or erased record, or one of
 * another workspace): what its pages hold, whole, for a person's export.
 */
export const wholeHistory = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  ctx: RequestContext,
  aggregate: Aggregate<C, E, S>,
  id: string,
  catalog: FieldCatalog
): Effect.Effect<ReadonlyArray<HistoryEntry>, StorageUnavailable> =>
  Effect.map(recordedEvents(deps, aggregate, ctx, id), (stream) => {
    const project = aggregate.project
    return stream.length === 0 || project === null ? [] : recordHistory(stream, project, (data) => visibleFields(data, catalog), catalog)
  })
