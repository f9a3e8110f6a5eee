import { Effect } from "effect"
import type { StorageUnavailable } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { FieldCatalog } from "../query/fields.js"
import type { EngineDeps } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { visibleFields } from "./reads.js"

/**
 * Activities as the API shows them. Skeleton: the activities helper limits the links to live
 * records here, and adds the read of a record's activities for expand=activities.
 */
export const activityViews = (
  _deps: EngineDeps,
  _ctx: RequestContext,
  activities: ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>,
  catalog: FieldCatalog
): Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable> =>
  Effect.succeed(activities.map((activity) => visibleFields(activity.data, catalog)))

/** Which link of an activity names the record: a contact's, a deal's or a company's activities. */
export type ActivityLink = "contact_ids" | "deal_ids" | "company_ids"

/**
 * The live activities linked to one record, as the API shows them, newest first, at most 100:
 * what expand=activities adds to a contact, a deal or a company. Skeleton: returns none.
 */
export const linkedActivities = (
  _deps: EngineDeps,
  _ctx: RequestContext,
  _link: ActivityLink,
  _id: string
): Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable> => Effect.succeed([])
