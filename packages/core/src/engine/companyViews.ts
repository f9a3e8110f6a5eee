import { Effect } from "effect"
import { companyView } from "../company/index.js"
import type { StorageUnavailable } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { Expr, FieldRef } from "../query/ast.js"
import type { FieldCatalog } from "../query/fields.js"
import type { StoredDocument } from "../storage/documents.js"
import type { EngineDeps } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { queryAll, visibleFields } from "./reads.js"

const companyIdsField: FieldRef = { name: "company_ids", type: "id_array" }
const companyIdField: FieldRef = { name: "company_id", type: "id" }

/** One condition per company, joined by Or: one query however many companies a page holds. */
const anyOf = (companyIds: ReadonlyArray<string>, naming: (id: string) => Expr): Expr =>
  companyIds.length === 1 ? naming(companyIds[0]!) : { _tag: "Or", exprs: companyIds.map(naming) }

/** The live contacts whose company_ids name any of these companies: their derived contact_ids. */
export const contactsNaming = (deps: EngineDeps, ctx: RequestContext, companyIds: ReadonlyArray<string>) =>
  companyIds.length === 0
    ? Effect.succeed<ReadonlyArray<StoredDocument>>([])
    : queryAll(deps, "contact", ctx.workspaceId, anyOf(companyIds, (value) => ({ _tag: "HasElement", field: companyIdsField, value })))

/** The live deals whose company_id is any of these companies: their derived deal_ids. */
export const dealsOfCompanies = (deps: EngineDeps, ctx: RequestContext, companyIds: ReadonlyArray<string>) =>
  companyIds.length === 0
    ? Effect.succeed<ReadonlyArray<StoredDocument>>([])
    : queryAll(deps, "deal", ctx.workspaceId, anyOf(companyIds, (value) => ({ _tag: "Compare", field: companyIdField, op: "eq", value })))

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
  Effect.gen(function*() {
    const ids = companies.map((company) => company.id)
    const [contacts, deals] = yield* Effect.all([contactsNaming(deps, ctx, ids), dealsOfCompanies(deps, ctx, ids)], { concurrency: 2 })
    return companies.map((company) => companyView(company.id, visibleFields(company.data, catalog), contacts, deals))
  })

export const oneCompanyView = (deps: EngineDeps, ctx: RequestContext, id: string, data: JsonObject, catalog: FieldCatalog) =>
  Effect.map(companyViews(deps, ctx, [{ id, data }], catalog), ([view]) => view!)
