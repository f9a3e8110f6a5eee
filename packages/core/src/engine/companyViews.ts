import { Effect } from "effect"
import type { StorageUnavailable } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { FieldCatalog } from "../query/fields.js"
import type { EngineDeps } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { visibleFields } from "./reads.js"

/**
 * Companies as the API shows them (a get, a list page, an expand, the trash, a write's answer, a
 * webhook payload). Skeleton: the companies helper derives contact_ids and deal_ids here.
 */
export const companyViews = (
  _deps: EngineDeps,
  _ctx: RequestContext,
  companies: ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>,
  catalog: FieldCatalog
): Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable> =>
  Effect.succeed(companies.map((company) => visibleFields(company.data, catalog)))
