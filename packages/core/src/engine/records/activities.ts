import { Effect } from "effect"
import {
  ACTIVITY_LINKS,
  activityAggregate,
  filterLinks,
  joinLinks,
  linksOf,
  parseActivityCreate,
  parseActivityPatch,
  perLink
} from "../../activity/index.js"
import type { StorageUnavailable } from "../../errors.js"
import { activityLinkParams, activityListParams, activityParamsWhere } from "../../query/activityParams.js"
import type { EngineDeps } from "../base/deps.js"
import type { ListParams, RequestContext } from "../contract/Engine.js"
import { activityViews, linkStates } from "../views/activityViews.js"
import { makeRecordService } from "./recordService.js"

export const makeActivities = (deps: EngineDeps) => {
  /** Whether every record the list parameters name is live: one in the trash is on no activity as shown. */
  const namedRecordsLive = (ctx: RequestContext, params: ListParams): Effect.Effect<boolean, StorageUnavailable> | undefined => {
    const named = perLink((link) =>
      Object.entries(activityLinkParams).flatMap(([name, listed]) => (listed === link && params[name] !== undefined ? [params[name]] : []))
    )
    if (ACTIVITY_LINKS.every((link) => named[link].length === 0)) return undefined
    return Effect.map(linkStates(deps, ctx, named), ({ live }) =>
      ACTIVITY_LINKS.every((link) => named[link].every((id) => live[link].has(id)))
    )
  }

  return makeRecordService(deps, {
    aggregate: activityAggregate,
    collection: "activity",
    catalog: (known) => known.activity,
    parse: { create: parseActivityCreate, patch: parseActivityPatch },
    commands: {
      create: ({ at, ctx, id }, { done, fields }) =>
        Effect.map(linkStates(deps, ctx, linksOf([fields])), ({ live }) => ({
          type: "CreateActivity" as const,
          id,
          at,
          fields,
          done,
          unknownIds: filterLinks(linksOf([fields]), (link, linked) => !live[link].has(linked))
        })),
      update: ({ at, ctx, current, id }, { done, fields }) =>
        Effect.gen(function* () {
          // A patched list: the given ids must be live; the linked ones in the trash are kept.
          const named = linksOf([fields])
          const linked = filterLinks(linksOf([current?.data ?? {}]), (link) => fields[link] !== undefined)
          const now = yield* linkStates(deps, ctx, joinLinks(named, linked))
          return {
            type: "UpdateActivity" as const,
            id,
            at,
            fields,
            done,
            unknownIds: filterLinks(named, (link, linkedId) => !now.live[link].has(linkedId)),
            trashedIds: filterLinks(linked, (link, linkedId) => now.trashed[link].has(linkedId))
          }
        }),
      delete: (id, at) => ({ type: "DeleteActivity" as const, id, at }),
      restore: (id, at, relink) => ({ type: "RestoreActivity" as const, id, at, fields: relink })
    },
    // An activity's view shows only the live records among its links: every view reads them.
    views: (ctx, rows, catalog) => activityViews(deps, ctx, rows, catalog),
    list: (ctx, params, catalog) =>
      Effect.map(Effect.fromResult(activityParamsWhere(params, catalog)), (where) => {
        const admit = namedRecordsLive(ctx, params)
        return {
          spec: {
            scope: "live",
            baseWhere: where,
            defaultSort: { field: { name: "created_at", type: "timestamp" }, direction: "asc" },
            allow: { filter: true, search: false, sort: true },
            extraParams: activityListParams
          },
          ...(admit === undefined ? {} : { admit })
        } as const
      })
  })
}
