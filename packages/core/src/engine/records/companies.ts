import { mergedIntoOf } from "../../record/merge.js"
import { Effect, Result } from "effect"
import {
  companyAggregate,
  companyView,
  domainKey,
  expandCompany,
  parseCompanyCreate,
  parseCompanyExpand,
  parseCompanyPatch
} from "../../company/index.js"
import { NotFound } from "../../errors.js"
import type { EngineDeps } from "../base/deps.js"
import { visibleFields } from "../base/reads.js"
import { catalogs } from "../base/settings.js"
import type { RequestContext } from "../contract/Engine.js"
import { linkedActivities } from "../views/activityViews.js"
import { companyViews, contactsNaming, dealsOfCompanies } from "../views/companyViews.js"
import { contactViews } from "../views/contactViews.js"
import { dealViews } from "../views/dealViews.js"
import { makeRecordService } from "./recordService.js"

export const makeCompanies = (deps: EngineDeps) => {
  const service = makeRecordService(deps, {
    aggregate: companyAggregate,
    collection: "company",
    catalog: (known) => known.company,
    parse: { create: parseCompanyCreate, patch: parseCompanyPatch },
    commands: {
      create: ({ at, id }, fields) => Effect.succeed({ type: "CreateCompany" as const, id, at, fields }),
      update: ({ at, id }, fields) => Effect.succeed({ type: "UpdateCompany" as const, id, at, fields }),
      delete: (id, at) => ({ type: "DeleteCompany" as const, id, at }),
      /** A domain another live company took meanwhile refuses the restore (409, aggregate.ts). */
      restore: (id, at) => ({ type: "RestoreCompany" as const, id, at })
    },
    views: (ctx, rows, catalog) => companyViews(deps, ctx, rows, catalog),
    // Contacts and deals may name only live companies, so none names one being created: its view needs no read.
    createdView: (id, data, catalog) => companyView(id, visibleFields(data, catalog), [], []),
    unique: { field: "domain", key: domainKey }
  })

  const get = (ctx: RequestContext, id: string, expandRaw: string | null) =>
    Effect.gen(function* () {
      const expand = parseCompanyExpand(expandRaw)
      if (Result.isFailure(expand)) return yield* expand.failure
      const doc = yield* deps.storage.getDocument("company", ctx.workspaceId, id)
      if (doc === null || doc.deletedAt !== null) return yield* new NotFound({ resource: "company", id, ...mergedIntoOf(doc?.data) })
      const known = yield* catalogs(deps, ctx)
      // The linked records are read once, for the ids and for what expand shows of them.
      const [contacts, deals] = yield* Effect.all([contactsNaming(deps, ctx, [id]), dealsOfCompanies(deps, ctx, [id])], { concurrency: 2 })
      const view = companyView(id, visibleFields(doc.data, known.company), contacts, deals)
      const data = expandCompany(view, {
        ...(expand.success.has("contacts") ? { contacts: yield* contactViews(deps, ctx, contacts, known.contact) } : {}),
        ...(expand.success.has("deals")
          ? {
              deals: yield* dealViews(
                deps,
                ctx,
                deals.map((deal) => deal.data),
                known.deal
              )
            }
          : {}),
        ...(expand.success.has("activities") ? { activities: yield* linkedActivities(deps, ctx, "company_ids", id) } : {})
      })
      return { data, version: doc.version }
    })

  return { ...service, get }
}
