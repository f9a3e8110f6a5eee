import { Effect } from "effect"
import { companyIdOf, showingLiveCompany } from "../../deal/companyLink.js"
import { contactIdsOf, showingLiveContacts } from "../../deal/contactLinks.js"
import type { StorageUnavailable } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { FieldCatalog } from "../../query/fields.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { companyStates } from "./companyViews.js"
import { contactStates } from "./contactViews.js"
import { visibleFields } from "../base/reads.js"

/**
 * Deals as the API shows them (a get, a list page, an expand, the trash, a write's answer, a
 * webhook payload): visible fields, `contact_ids` without contacts that are not live and
 * `company_id` null when its company is not, both read for all the deals at once.
 */
export const dealViews = (
  deps: EngineDeps,
  ctx: RequestContext,
  deals: ReadonlyArray<JsonObject>,
  catalog: FieldCatalog
): Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable> =>
  Effect.map(
    Effect.all(
      [
        contactStates(deps, ctx, deals.flatMap(contactIdsOf)),
        companyStates(
          deps,
          ctx,
          deals.flatMap((deal) => companyIdOf(deal) ?? [])
        )
      ],
      { concurrency: 2 }
    ),
    ([contacts, companies]) =>
      deals.map((data) => visibleFields(showingLiveCompany(showingLiveContacts(data, contacts.live), companies.live), catalog))
  )

export const dealView = (deps: EngineDeps, ctx: RequestContext, deal: JsonObject, catalog: FieldCatalog) =>
  Effect.map(dealViews(deps, ctx, [deal], catalog), ([view]) => view!)
