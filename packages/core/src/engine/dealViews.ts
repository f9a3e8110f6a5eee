import { Effect } from "effect"
import { contactIdsOf, showingLiveContacts } from "../deal/contactLinks.js"
import type { StorageUnavailable } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { FieldCatalog } from "../query/fields.js"
import type { EngineDeps } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { visibleFields } from "./reads.js"

/** Which of these contact ids name contacts of the workspace that are live, and which are in its trash. */
export const contactStates = (deps: EngineDeps, ctx: RequestContext, ids: ReadonlyArray<string>) =>
  Effect.map(
    ids.length === 0 ? Effect.succeed([]) : deps.storage.getDocuments("contact", ctx.workspaceId, ids),
    (docs) => ({
      live: new Set(docs.filter((doc) => doc.deletedAt === null).map((doc) => doc.id)),
      trashed: new Set(docs.filter((doc) => doc.deletedAt !== null).map((doc) => doc.id))
    })
  )

/**
 * Deals as the API shows them (a get, a list page, an expand, the trash, a write's answer, a
 * webhook payload): visible fields, and `contact_ids` without contacts that are not live, read for
 * all the deals at once.
 */
export const dealViews = (
  deps: EngineDeps,
  ctx: RequestContext,
  deals: ReadonlyArray<JsonObject>,
  catalog: FieldCatalog
): Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable> =>
  Effect.map(
    contactStates(deps, ctx, [...new Set(deals.flatMap(contactIdsOf))]),
    ({ live }) => deals.map((data) => visibleFields(showingLiveContacts(data, live), catalog))
  )

export const dealView = (deps: EngineDeps, ctx: RequestContext, deal: JsonObject, catalog: FieldCatalog) =>
  Effect.map(dealViews(deps, ctx, [deal], catalog), ([view]) => view!)
