import { Effect } from "effect"
import { RECOVERY_WINDOW_MILLIS } from "../../decider.js"
import { ValidationError } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { StorageUnavailable } from "../../errors.js"
import { activityViews } from "../views/activityViews.js"
import { companyViews } from "../views/companyViews.js"
import { contactViews } from "../views/contactViews.js"
import { dealViews } from "../views/dealViews.js"
import type { EngineDeps } from "../base/deps.js"
import type { ListParams, RequestContext } from "../contract/Engine.js"
import { listPage } from "../views/listPage.js"
import { type Catalogs, catalogs } from "../base/settings.js"
import { isRecordType, type RecordType, recordTypes } from "../../recordTypes.js"
import type { FieldCatalog } from "../../query/fields.js"
import type { Collection } from "../../storage/documents.js"

const purgeAt = (deletedAt: string) => new Date(Date.parse(deletedAt) + RECOVERY_WINDOW_MILLIS).toISOString()

type Rows = ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>

/** How one record type shows its records in the trash, and its catalog there. */
export interface TrashShown {
  readonly catalog: (known: Catalogs) => FieldCatalog
  readonly views: (ctx: RequestContext, rows: Rows, catalog: FieldCatalog) => Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable>
}

type TrashView = (
  deps: EngineDeps,
  ctx: RequestContext,
  rows: Rows,
  known: Catalogs
) => Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable>

/** How each record type (all have a trash: recordTypes.ts) shows its records there: as its GET would. */
const trashViews: { readonly [T in RecordType]: TrashView } = {
  contact: (deps: EngineDeps, ctx: RequestContext, rows: Rows, known: Catalogs) => contactViews(deps, ctx, rows, known.contact),
  deal: (deps: EngineDeps, ctx: RequestContext, rows: Rows, known: Catalogs) =>
    dealViews(
      deps,
      ctx,
      rows.map((row) => row.data),
      known.deal
    ),
  company: (deps: EngineDeps, ctx: RequestContext, rows: Rows, known: Catalogs) => companyViews(deps, ctx, rows, known.company),
  activity: (deps: EngineDeps, ctx: RequestContext, rows: Rows, known: Catalogs) => activityViews(deps, ctx, rows, known.activity)
}

export const TRASH_TYPES: ReadonlyArray<RecordType> = recordTypes

/**
 * Soft-deleted records of one type, oldest record first, each with the time it will be purged:
 * the built-in record types' and the plug-ins' (`plugins`, by name).
 */
export const makeTrash = (deps: EngineDeps, plugins: ReadonlyMap<string, TrashShown>) => {
  const typeNames = deps.recordTypes.names.join(", ")
  const catalogFor = (type: string, known: Catalogs) => (isRecordType(type) ? known[type] : plugins.get(type)!.catalog(known))
  const viewsFor = (type: string, ctx: RequestContext, rows: Rows, known: Catalogs) =>
    isRecordType(type) ? trashViews[type](deps, ctx, rows, known) : plugins.get(type)!.views(ctx, rows, catalogFor(type, known))
  return {
    list: (ctx: RequestContext, params: ListParams) =>
      Effect.gen(function* () {
        const type = params["type"]
        if (type === undefined || !deps.recordTypes.has(type)) {
          return yield* ValidationError.at("type", type === undefined ? `is required (${typeNames})` : `must be one of ${typeNames}`)
        }
        const known = yield* catalogs(deps, ctx)
        const page = yield* listPage(deps, ctx, type as Collection, params, {
          catalog: catalogFor(type, known),
          scope: "deleted",
          baseWhere: { _tag: "True" },
          defaultSort: { field: { name: "id", type: "id" }, direction: "asc" },
          allow: { filter: false, search: false, sort: false },
          extraParams: ["type"]
        })
        const records = yield* viewsFor(type, ctx, page.rows, known)
        return {
          data: page.rows.map(
            (row, i): JsonObject => ({
              type,
              id: row.id,
              deleted_at: row.deletedAt,
              purge_at: row.deletedAt === null ? null : purgeAt(row.deletedAt),
              record: records[i]!
            })
          ),
          next_cursor: page.next_cursor
        }
      })
  }
}
