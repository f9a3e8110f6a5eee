import { Effect, Result } from "effect"
import {
  companyAggregate,
  type CompanyEvent,
  companyView,
  domainKey,
  expandCompany,
  parseCompanyCreate,
  parseCompanyExpand,
  parseCompanyPatch
} from "../../company/index.js"
import { NotFound } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import { linkedActivities } from "../views/activityViews.js"
import { runBatch } from "../commands/batch.js"
import { companyViews, contactsNaming, dealsOfCompanies, oneCompanyView } from "../views/companyViews.js"
import { contactViews } from "../views/contactViews.js"
import { dealViews } from "../views/dealViews.js"
import type { EngineDeps } from "../base/deps.js"
import type { EngineService, IfMatch, ListParams, RequestContext, Versioned } from "../contract/Engine.js"
import { type Handled, handleCommand, type Write, write } from "../commands/handleCommand.js"
import { historyPage } from "../views/history.js"
import { listPage } from "../views/listPage.js"
import { announcedRecord, outbox } from "../commands/outbox.js"
import { visibleFields } from "../base/reads.js"
import { type Catalogs, catalogs, catalogsOf, parsedWith } from "../base/settings.js"
import { storableBody } from "../base/storable.js"

export const makeCompanies = (deps: EngineDeps): EngineService["companies"] => {
  /** What every company command shares: its stream, the workspace's catalogs, the outbox. */
  const commandOn = (ctx: RequestContext, id: string) => ({
    ctx,
    streamId: id,
    prepare: catalogsOf,
    // Contacts and deals may name only live companies, so none names one being created: its view needs no read.
    also: outbox(deps, ctx, companyAggregate, (data, known, event) =>
      event.type === "company.created"
        ? Effect.succeed(companyView(id, visibleFields(data, known.company), [], []))
        : oneCompanyView(deps, ctx, id, data, known.company)
    )
  })

  const get = (ctx: RequestContext, id: string, expandRaw: string | null) =>
    Effect.gen(function* () {
      const expand = parseCompanyExpand(expandRaw)
      if (Result.isFailure(expand)) return yield* expand.failure
      const doc = yield* deps.storage.getDocument("company", ctx.workspaceId, id)
      if (doc === null || doc.deletedAt !== null) return yield* new NotFound({ resource: "company", id })
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

  const list = (ctx: RequestContext, params: ListParams) =>
    Effect.gen(function* () {
      const { company } = yield* catalogs(deps, ctx)
      const page = yield* listPage(deps, ctx, "company", params, {
        catalog: company,
        scope: "live",
        baseWhere: { _tag: "True" },
        defaultSort: { field: { name: "created_at", type: "timestamp" }, direction: "asc" },
        allow: { filter: true, search: true, sort: true },
        extraParams: []
      })
      return { data: yield* companyViews(deps, ctx, page.rows, company), next_cursor: page.next_cursor }
    })

  /**
   * The company as the write that just committed left it: the view its announcement carries, made
   * before the commit, so the answer costs no read and a concurrent write cannot change it. A write
   * that committed nothing (a patch changing nothing) is shown now.
   */
  const written =
    <P>(ctx: RequestContext, id: string, catalogOf: (prepared: P) => Catalogs) =>
    (handled: Handled<CompanyEvent, unknown> & { readonly prepared: P }) =>
      Effect.gen(function* () {
        const announced = announcedRecord(handled.payloads, "company")
        if (announced !== null) return { data: announced, version: handled.version }
        const projected = handled.projected
        if (projected === null) return yield* new NotFound({ resource: "company", id })
        return { data: yield* oneCompanyView(deps, ctx, id, projected.data, catalogOf(handled.prepared).company), version: handled.version }
      })

  /** A new company from a body already checked as storable text. */
  const createWrite = (ctx: RequestContext, input: unknown) =>
    Effect.map(
      deps.ids.make(companyAggregate.prefix),
      (id): Write<Versioned> =>
        write(
          deps,
          companyAggregate,
          {
            ...commandOn(ctx, id),
            stream: "new",
            prepare: parsedWith(parseCompanyCreate, input),
            command: ({ at, prepared }) => Effect.succeed({ type: "CreateCompany" as const, id, at, fields: prepared.fields })
          },
          written(ctx, id, (prepared) => prepared.known)
        )
    )

  const updateWrite = (ctx: RequestContext, id: string, input: unknown, ifMatch: IfMatch): Write<Versioned> =>
    write(
      deps,
      companyAggregate,
      {
        ...commandOn(ctx, id),
        ifMatch,
        prepare: parsedWith(parseCompanyPatch, input),
        command: ({ at, prepared }) => Effect.succeed({ type: "UpdateCompany" as const, id, at, fields: prepared.fields })
      },
      written(ctx, id, (prepared) => prepared.known)
    )

  /** An upsert by domain: an update of the live company holding it, or a create with it. */
  const upsertWrite = (ctx: RequestContext, domain: string, data: JsonObject) =>
    Effect.flatMap(deps.storage.documentByUniqueKey("company", ctx.workspaceId, domainKey(domain)), (holder) =>
      holder === null
        ? Effect.map(createWrite(ctx, { domain, ...data }), (planned) => ({ write: planned, created: true }))
        : Effect.succeed({ write: updateWrite(ctx, holder.id, data, null), created: false })
    )

  const batch = (ctx: RequestContext, body: unknown) =>
    runBatch(deps, ctx, body, {
      create: createWrite,
      update: (ctx, id, data) => updateWrite(ctx, id, data, null),
      upsert: { field: "domain", write: upsertWrite }
    })

  const create = (ctx: RequestContext, body: unknown) =>
    Effect.flatMap(storableBody(body), (input) => Effect.flatMap(createWrite(ctx, input), (planned) => planned.run))

  const update = (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) =>
    Effect.flatMap(storableBody(body), (input) => updateWrite(ctx, id, input, ifMatch).run)

  const remove = (ctx: RequestContext, id: string, ifMatch: IfMatch) =>
    Effect.asVoid(
      handleCommand(deps, companyAggregate, {
        ...commandOn(ctx, id),
        ifMatch,
        command: ({ at }) => Effect.succeed({ type: "DeleteCompany" as const, id, at })
      })
    )

  /** A domain another live company took meanwhile refuses the restore (409, aggregate.ts). */
  const restore = (ctx: RequestContext, id: string) =>
    write(
      deps,
      companyAggregate,
      {
        ...commandOn(ctx, id),
        command: ({ at }) => Effect.succeed({ type: "RestoreCompany" as const, id, at })
      },
      written(ctx, id, (prepared) => prepared)
    ).run

  const history = (ctx: RequestContext, id: string, params: ListParams) =>
    Effect.flatMap(catalogs(deps, ctx), ({ company }) => historyPage(deps, ctx, companyAggregate, id, params, company))

  return { list, get, create, update, delete: remove, restore, history, batch }
}
