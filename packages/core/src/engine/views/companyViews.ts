import { Effect } from "effect"
import { companyView } from "../../company/index.js"
import type { StorageUnavailable } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { FieldRef } from "../../query/ast.js"
import type { FieldCatalog } from "../../query/fields.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { liveNaming, recordStates, visibleFields } from "../base/reads.js"

const companyIdsField: FieldRef = { name: "company_ids", type: "id_array" }
const companyIdField: FieldRef = { name: "company_id", type: "id" }

/** Which of these company ids name companies of the workspace that are live, and which are in its trash. */
export const companyStates = (deps: EngineDeps, ctx: RequestContext, ids: ReadonlyArray<string>) =>
  recordStates(deps, "company", ctx.workspaceId, ids)

/** The live contacts whose company_ids name any of these companies: their derived contact_ids. */
export const contactsNaming = (deps: EngineDeps, ctx: RequestContext, companyIds: ReadonlyArray<string>) =>
  liveNaming(deps, "contact", ctx.workspaceId, companyIdsField, companyIds)

/** The live deals whose company_id is any of these companies: their derived deal_ids. */
export const dealsOfCompanies = (deps: EngineDeps, ctx: RequestContext, companyIds: ReadonlyArray<string>) =>
  liveNaming(deps, "deal", ctx.workspaceId, companyIdField, companyIds)

/**
 * Companies as the API shows them (a get, a list page, an expand, the trash, a write's answer, a
 * webhook payload): visible fields, then the derived contact_ids and deal_ids, the contacts and
 * the deals read for all of them at once.
 */
export const companyViews = (
  deps: EngineDeps,
  ctx: RequestContext,
  companies: ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>,
  catalog: FieldCatalog
): Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable> =>
  Effect.gen(function* () {
    const ids = companies.map((company) => company.id)
    const [contacts, deals] = yield* Effect.all([contactsNaming(deps, ctx, ids), dealsOfCompanies(deps, ctx, ids)], { concurrency: 2 })
    return companies.map((company) => companyView(company.id, visibleFields(company.data, catalog), contacts, deals))
  })

export const oneCompanyView = (deps: EngineDeps, ctx: RequestContext, id: string, data: JsonObject, catalog: FieldCatalog) =>
  Effect.map(companyViews(deps, ctx, [{ id, data }], catalog), ([view]) => view!)
