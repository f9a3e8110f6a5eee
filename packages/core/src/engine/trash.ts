import { Effect, Result } from "effect"
import { RECOVERY_WINDOW_MILLIS } from "../decider.js"
import { ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"
import { paginate, parseListQuery } from "../query/index.js"
import { catalogOf } from "../query/fields.js"
import type { Contacts } from "./contacts.js"
import type { EngineDeps } from "./deps.js"
import { storableParams } from "./storable.js"
import type { ListParams, RequestContext } from "./Engine.js"
import { dealViews } from "./dealViews.js"

const purgeAt = (deletedAt: string) => new Date(Date.parse(deletedAt) + RECOVERY_WINDOW_MILLIS).toISOString()

/** Soft-deleted records of one type, oldest record first, each with the time it will be purged. */
export const makeTrash = (deps: EngineDeps, contacts: Contacts) => ({
  list: (ctx: RequestContext, params: ListParams) =>
    Effect.gen(function*() {
      const type = params["type"]
      if (type !== "contact" && type !== "deal") {
        return yield* ValidationError.at("type", type === undefined ? "is required (contact or deal)" : "must be contact or deal")
      }
      const { defs, contact } = yield* contacts.catalogs(ctx)
      const parsed = parseListQuery(yield* storableParams(params), {
        catalog: catalogOf(type, defs),
        scope: "deleted",
        baseWhere: { _tag: "True" },
        defaultSort: { field: { name: "id", type: "id" }, direction: "asc" },
        allow: { filter: false, search: false, sort: false },
        extraParams: ["type"]
      })
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const query = parsed.success
      const rows = yield* deps.storage.queryDocuments(type, ctx.workspaceId, { ...query, limit: query.limit + 1 })
      const page = paginate(rows, query)
      const records: ReadonlyArray<JsonObject> = type === "contact"
        ? yield* contacts.views(ctx, page.rows, contact)
        : yield* dealViews(deps, ctx, page.rows.map((row) => row.data), catalogOf("deal", defs))
      return {
        data: page.rows.map((row, i): JsonObject => ({
          type,
          id: row.id,
          deleted_at: row.deletedAt,
          purge_at: row.deletedAt === null ? null : purgeAt(row.deletedAt),
          record: records[i]!
        })),
        next_cursor: page.next_cursor
      }
    })
})
