import { Effect } from "effect"
import {
  type ActivityLink,
  linkedCollection,
  type LinkIds,
  linksOf,
  type LinkSets,
  perLink,
  showingLiveLinks
} from "../../activity/index.js"
import type { StorageUnavailable } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { FieldCatalog } from "../../query/fields.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { recordStates, visibleFields } from "../base/reads.js"
import { catalogs } from "../base/settings.js"

export type { ActivityLink }

/** Which linked records are live and which are in the trash, per list: one read per collection named. */
export const linkStates = (deps: EngineDeps, ctx: RequestContext, ids: LinkIds) =>
  Effect.map(
    Effect.all(
      perLink((link) => recordStates(deps, linkedCollection[link], ctx.workspaceId, ids[link])),
      { concurrency: "unbounded" }
    ),
    (states): { readonly live: LinkSets; readonly trashed: LinkSets } => ({
      live: perLink((link) => states[link].live),
      trashed: perLink((link) => states[link].trashed)
    })
  )

/**
 * Activities as the API shows them (a get, a list page, an expand, the trash, a write's answer, a
 * webhook payload): visible fields, each link list without the records that are not live, read for
 * all the activities at once.
 */
export const activityViews = (
  deps: EngineDeps,
  ctx: RequestContext,
  activities: ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>,
  catalog: FieldCatalog
): Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable> =>
  Effect.map(linkStates(deps, ctx, linksOf(activities.map((activity) => activity.data))), ({ live }) =>
    activities.map(({ data }) => visibleFields(showingLiveLinks(data, live), catalog))
  )

export const activityView = (deps: EngineDeps, ctx: RequestContext, id: string, data: JsonObject, catalog: FieldCatalog) =>
  Effect.map(activityViews(deps, ctx, [{ id, data }], catalog), ([view]) => view!)

/** What expand=activities shows at most: the newest ones. */
const LINKED_MAX = 100

/**
 * The live activities linked to one record, as the API shows them, newest first (by created_at,
 * then id), at most 100: what expand=activities adds to a contact, a deal or a company. One bounded
 * query on the link list's index.
 */
export const linkedActivities = (
  deps: EngineDeps,
  ctx: RequestContext,
  link: ActivityLink,
  id: string
): Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable> =>
  Effect.gen(function* () {
    const { activity } = yield* catalogs(deps, ctx)
    const rows = yield* deps.storage.queryDocuments("activity", ctx.workspaceId, {
      where: { _tag: "HasElement", field: { name: link, type: "id_array" }, value: id },
      scope: "live",
      sort: { field: { name: "created_at", type: "timestamp" }, direction: "desc" },
      after: null,
      limit: LINKED_MAX
    })
    return yield* activityViews(deps, ctx, rows, activity)
  })
