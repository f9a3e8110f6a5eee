import { Effect, Result } from "effect"
import {
  ACTIVITY_LINKS,
  activityAggregate,
  type ActivityEvent,
  type ActivityParser,
  filterLinks,
  joinLinks,
  linksOf,
  perLink,
  parseActivityCreate,
  parseActivityPatch
} from "../../activity/index.js"
import { NotFound, type StorageUnavailable } from "../../errors.js"
import { activityLinkParams, activityListParams, activityParamsWhere } from "../../query/activityParams.js"
import { activityView, activityViews, linkStates } from "../views/activityViews.js"
import type { EngineDeps } from "../base/deps.js"
import type { EngineService, IfMatch, ListParams, RequestContext } from "../contract/Engine.js"
import { type Handled, handleCommand } from "../commands/handleCommand.js"
import { historyPage } from "../views/history.js"
import { listPage } from "../views/listPage.js"
import { announcedRecord, outbox } from "../commands/outbox.js"
import { type Catalogs, catalogs, catalogsOf, type Settings } from "../base/settings.js"
import { storableBody, storableParams } from "../base/storable.js"

/** A body read against the workspace's custom field catalog, with the catalogs it was read by. */
const parsedWith = (parse: ActivityParser, input: unknown) => (settings: Settings) =>
  Effect.flatMap(settings.catalogs, (known) => {
    const parsed = parse(input, known.defs)
    return Result.isFailure(parsed) ? Effect.fail(parsed.failure) : Effect.succeed({ known, ...parsed.success })
  })

export const makeActivities = (deps: EngineDeps): EngineService["activities"] => {
  /** What every activity command shares: its stream, the workspace's catalogs, the outbox. */
  const commandOn = (ctx: RequestContext, id: string) => ({
    ctx,
    streamId: id,
    prepare: catalogsOf,
    also: outbox(deps, ctx, activityAggregate, (data, known) => activityView(deps, ctx, id, data, known.activity))
  })

  /**
   * The activity as the write that just committed left it: the view its announcement carries,
   * made before the commit. Reading the document again could meet a concurrent delete and answer
   * 404 for a write that happened.
   */
  const written = (ctx: RequestContext, id: string, result: Handled<ActivityEvent, unknown>, known: Catalogs) => {
    const announced = announcedRecord(result.payloads, "activity")
    if (announced !== null) return Effect.succeed({ data: announced, version: result.version })
    // Nothing committed (a patch that changed nothing): shown now.
    const projected = result.projected
    if (projected === null) return Effect.fail(new NotFound({ resource: "activity", id }))
    return Effect.map(activityView(deps, ctx, id, projected.data, known.activity), (data) => ({ data, version: result.version }))
  }

  const get = (ctx: RequestContext, id: string) =>
    Effect.gen(function* () {
      const doc = yield* deps.storage.getDocument("activity", ctx.workspaceId, id)
      if (doc === null || doc.deletedAt !== null) return yield* new NotFound({ resource: "activity", id })
      const { activity } = yield* catalogs(deps, ctx)
      return { data: yield* activityView(deps, ctx, id, doc.data, activity), version: doc.version }
    })

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

  const list = (ctx: RequestContext, params: ListParams) =>
    Effect.gen(function* () {
      const { activity } = yield* catalogs(deps, ctx)
      const where = activityParamsWhere(yield* storableParams(params), activity)
      if (Result.isFailure(where)) return yield* where.failure
      const page = yield* listPage(
        deps,
        ctx,
        "activity",
        params,
        {
          catalog: activity,
          scope: "live",
          baseWhere: where.success,
          defaultSort: { field: { name: "created_at", type: "timestamp" }, direction: "asc" },
          allow: { filter: true, search: false, sort: true },
          extraParams: activityListParams
        },
        namedRecordsLive(ctx, params)
      )
      return { data: yield* activityViews(deps, ctx, page.rows, activity), next_cursor: page.next_cursor }
    })

  const create = (ctx: RequestContext, body: unknown) =>
    Effect.gen(function* () {
      const input = yield* storableBody(body)
      const id = yield* deps.ids.make(activityAggregate.prefix)
      const result = yield* handleCommand(deps, activityAggregate, {
        ...commandOn(ctx, id),
        stream: "new",
        prepare: parsedWith(parseActivityCreate, input),
        command: ({ at, prepared: { done, fields } }) =>
          Effect.map(linkStates(deps, ctx, linksOf([fields])), ({ live }) => ({
            type: "CreateActivity" as const,
            id,
            at,
            fields,
            done,
            unknownIds: filterLinks(linksOf([fields]), (link, linked) => !live[link].has(linked))
          }))
      })
      return yield* written(ctx, id, result, result.prepared.known)
    })

  const update = (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) =>
    Effect.gen(function* () {
      const input = yield* storableBody(body)
      const result = yield* handleCommand(deps, activityAggregate, {
        ...commandOn(ctx, id),
        ifMatch,
        prepare: parsedWith(parseActivityPatch, input),
        command: ({ at, prepared: { done, fields }, projected: current }) =>
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
          })
      })
      return yield* written(ctx, id, result, result.prepared.known)
    })

  const remove = (ctx: RequestContext, id: string, ifMatch: IfMatch) =>
    Effect.asVoid(
      handleCommand(deps, activityAggregate, {
        ...commandOn(ctx, id),
        ifMatch,
        command: ({ at }) => Effect.succeed({ type: "DeleteActivity" as const, id, at })
      })
    )

  const restore = (ctx: RequestContext, id: string) =>
    Effect.gen(function* () {
      const result = yield* handleCommand(deps, activityAggregate, {
        ...commandOn(ctx, id),
        command: ({ at }) => Effect.succeed({ type: "RestoreActivity" as const, id, at })
      })
      return yield* written(ctx, id, result, result.prepared)
    })

  const history = (ctx: RequestContext, id: string, params: ListParams) =>
    Effect.flatMap(catalogs(deps, ctx), ({ activity }) => historyPage(deps, ctx, activityAggregate, id, params, activity))

  return { list, get, create, update, delete: remove, restore, history }
}
