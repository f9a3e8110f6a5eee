import { Effect } from "effect"
import { RECOVERY_WINDOW_MILLIS } from "../../decider.js"
import { ValidationError } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { StorageUnavailable } from "../../errors.js"
import type { EngineDeps } from "../base/deps.js"
import type { ListParams, RequestContext } from "../contract/Engine.js"
import { listPage } from "../views/listPage.js"
import { type Catalogs, catalogs } from "../base/settings.js"
import type { FieldCatalog } from "../../query/fields.js"
import type { Collection } from "../../storage/documents.js"

const purgeAt = (deletedAt: string) => new Date(Date.parse(deletedAt) + RECOVERY_WINDOW_MILLIS).toISOString()

type Rows = ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>

/** How one record type shows its records in the trash, and its catalog there. */
export interface TrashShown {
  readonly catalog: (known: Catalogs) => FieldCatalog
  readonly views: (ctx: RequestContext, rows: Rows, catalog: FieldCatalog) => Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable>
}

/**
 * Soft-deleted records of one type, oldest record first, each with the time it will be purged;
 * `shown` is how each record type (every one has a trash) shows them: as its GET would.
 */
export const makeTrash = (deps: EngineDeps, shown: ReadonlyMap<string, TrashShown>) => {
  const typeNames = deps.recordTypes.names.join(", ")
  return {
    list: (ctx: RequestContext, params: ListParams) =>
      Effect.gen(function* () {
        const type = params["type"]
        if (type === undefined || !deps.recordTypes.has(type)) {
          return yield* ValidationError.at("type", type === undefined ? `is required (${typeNames})` : `must be one of ${typeNames}`)
        }
        const known = yield* catalogs(deps, ctx)
        const { catalog, views } = shown.get(type)!
        const page = yield* listPage(deps, ctx, type as Collection, params, {
          catalog: catalog(known),
          scope: "deleted",
          baseWhere: { _tag: "True" },
          defaultSort: { field: { name: "id", type: "id" }, direction: "asc" },
          allow: { filter: false, search: false, sort: false },
          extraParams: ["type"]
        })
        const records = yield* views(ctx, page.rows, catalog(known))
        return {
          data: page.rows.map(
            (row, i): JsonObject => ({
              type,
              id: row.id,
              deleted_at: row.deletedAt,
              purge_at: row.deletedAt === null ? null : purgeAt(row.deletedAt),
              // A merged record is in the trash too, naming its survivor (record/merge.ts).
              ...(typeof row.data["merged_into"] === "string" ? { merged_into: row.data["merged_into"] } : {}),
              record: records[i]!
            })
          ),
          next_cursor: page.next_cursor
        }
      })
  }
}
