import { Effect } from "effect"
import { RECOVERY_WINDOW_MILLIS } from "../decider.js"
import { ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"
import { catalogOf } from "../query/fields.js"
import { contactViews } from "./contactViews.js"
import { catalogs } from "./customFields.js"
import { dealViews } from "./dealViews.js"
import type { EngineDeps } from "./deps.js"
import type { ListParams, RequestContext } from "./Engine.js"
import { listPage } from "./listPage.js"

const purgeAt = (deletedAt: string) => new Date(Date.parse(deletedAt) + RECOVERY_WINDOW_MILLIS).toISOString()

/** Soft-deleted records of one type, oldest record first, each with the time it will be purged. */
export const makeTrash = (deps: EngineDeps) => ({
  list: (ctx: RequestContext, params: ListParams) =>
    Effect.gen(function*() {
      const type = params["type"]
      if (type !== "contact" && type !== "deal") {
        return yield* ValidationError.at("type", type === undefined ? "is required (contact or deal)" : "must be contact or deal")
      }
      const { defs, contact } = yield* catalogs(deps, ctx)
      const page = yield* listPage(deps, ctx, type, params, {
        catalog: catalogOf(type, defs),
        scope: "deleted",
        baseWhere: { _tag: "True" },
        defaultSort: { field: { name: "id", type: "id" }, direction: "asc" },
        allow: { filter: false, search: false, sort: false },
        extraParams: ["type"]
      })
      const records: ReadonlyArray<JsonObject> = type === "contact"
        ? yield* contactViews(deps, ctx, page.rows, contact)
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
