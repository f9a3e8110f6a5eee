import { Effect, Result } from "effect"
import { type StorageUnavailable, ValidationError } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import { decodeCursor, encodeCursor } from "../../query/cursor.js"
import { parseLimit } from "../../query/parseLimit.js"
import { type DuplicateCollection, duplicateGroupView } from "../../record/duplicateKeys.js"
import type { EngineDeps } from "../base/deps.js"
import { storableParams } from "../base/storable.js"
import type { ListParams } from "../../query/parseListQuery.js"
import type { RequestContext } from "../contract/Engine.js"

/**
 * `GET /v1/<records>/duplicates` (API.md, "Merge and duplicates"): a page of groups of live records
 * sharing a duplicate key (record/duplicateKeys.ts), in (rule, key) order, `limit` and `cursor` as
 * every list's. The cursor carries the last group's rule and key.
 */
export const makeDuplicates = (deps: EngineDeps, collection: DuplicateCollection) => {
  const fingerprint = `duplicates:${collection}`
  return {
    duplicates: (
      ctx: RequestContext,
      params: ListParams
    ): Effect.Effect<
      { readonly data: ReadonlyArray<JsonObject>; readonly next_cursor: string | null },
      ValidationError | StorageUnavailable
    > =>
      Effect.gen(function* () {
        const read = yield* storableParams(params)
        const unknown = Object.keys(read).filter((key) => key !== "limit" && key !== "cursor")
        if (unknown.length > 0) return yield* ValidationError.of(unknown.map((key) => ({ path: key, message: "is not a known parameter" })))
        const limit = parseLimit(read["limit"])
        if (Result.isFailure(limit)) return yield* limit.failure
        const cursor = read["cursor"] === undefined ? null : decodeCursor(read["cursor"], fingerprint)
        if (cursor !== null && Result.isFailure(cursor)) return yield* cursor.failure
        const after = cursor === null ? null : { rule: String(cursor.success.value), key: cursor.success.id }
        const groups = yield* deps.storage.duplicates(collection, ctx.workspaceId, after, limit.success + 1)
        const page = groups.slice(0, limit.success)
        const last = page.at(-1)
        return {
          data: page.map(duplicateGroupView),
          next_cursor:
            groups.length > limit.success && last !== undefined ? encodeCursor(fingerprint, { value: last.rule, id: last.key }) : null
        }
      })
  }
}
