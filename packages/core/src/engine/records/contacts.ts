import { Effect, Result } from "effect"
import {
  contactAggregate,
  type ContactEvent,
  contactView,
  contactViewWith,
  emailKey,
  expandContact,
  linkedCompanyIds,
  namedCompanies,
  parseContactCreate,
  parseContactPatch,
  parseExpand
} from "../../contact/index.js"
import type { JsonObject } from "../../json.js"
import { NotFound, type StorageUnavailable, ValidationError } from "../../errors.js"
import type { Expr } from "../../query/ast.js"
import type { RecordsRead } from "../../storage/Storage.js"
import { linkedActivities } from "../views/activityViews.js"
import { companyStates, companyViews } from "../views/companyViews.js"
import { dealsNaming, idsOf, liveCompaniesOf, oneContactView } from "../views/contactViews.js"
import type { Catalogs } from "../base/settings.js"
import { dealViews } from "../views/dealViews.js"
import type { EngineDeps } from "../base/deps.js"
import type { IfMatch, ListParams, Page, RequestContext, Versioned } from "../contract/Engine.js"
import { runBatch } from "../commands/batch.js"
import { type Handled, handleCommand, type Write, write } from "../commands/handleCommand.js"
import { contactAsOf, parseAsOf } from "../views/asOf.js"
import { historyPage } from "../views/history.js"
import { catalogs, catalogsOf, parsedWith, settingsOf } from "../base/settings.js"
import { listPage } from "../views/listPage.js"
import { announcedRecord, outbox } from "../commands/outbox.js"
import { visibleFields } from "../base/reads.js"
import { storableBody, storableParams } from "../base/storable.js"

/** The deals whose contact_ids name a contact: its derived deal_ids. */
const dealsLinkingContacts = { collection: "deal", field: "contact_ids" } as const

/** The contact list's own query parameters, besides limit, cursor, filter, search and sort. */
export const contactListParams: ReadonlyArray<string> = ["company_id"]

const companyIdsField = { name: "company_ids", type: "id_array" } as const

/**
 * `company_id`: the contacts whose company_ids hold it (a contact of before, with no stored
 * company_ids, names no company). A company not live lists nothing: the engine does not even ask.
 */
const companyWhere = (companyId: string | undefined): Result.Result<Expr, ValidationError> =>
  companyId === undefined
    ? Result.succeed({ _tag: "True" })
    : companyId === ""
      ? Result.fail(ValidationError.at("company_id", "must not be empty"))
      : Result.succeed({ _tag: "HasElement", field: companyIdsField, value: companyId })

export const makeContacts = (deps: EngineDeps) => {
  /** What every contact command shares: its stream, the workspace's catalogs, the outbox. */
  const commandOn = (ctx: RequestContext, id: string) => ({
    ctx,
    streamId: id,
    prepare: catalogsOf,
    // No deal can name a contact before it exists (deals check their contact ids), and the companies
    // it names were found live by this very command: a new one's view needs no read.
    also: outbox(deps, ctx, contactAggregate, (data, known, event) =>
      event.type === "contact.created"
        ? Effect.succeed(contactView(id, visibleFields(data, known.contact), [], new Set(linkedCompanyIds(data))))
        : oneContactView(deps, ctx, id, data, known.contact)
    )
  })

  /** The companies a body names that are not live companies of the workspace, at the paths it names them. */
  const unknownCompanies = (ctx: RequestContext, body: unknown) => {
    const named = namedCompanies(body)
    return Effect.map(
      companyStates(
        deps,
        ctx,
        named.map((company) => company.id)
      ),
      ({ live }) => named.filter((company) => !live.has(company.id))
    )
  }

  const get = (ctx: RequestContext, id: string, expandRaw: string | null) =>
    Effect.gen(function* () {
      const expand = parseExpand(expandRaw)
      if (Result.isFailure(expand)) return yield* expand.failure
      // The document, the ids of the deals naming it and the settings version: one round trip; then
      // its companies (none to read for most contacts) beside the catalogs, when those are not kept.
      const read = yield* deps.storage.readRecord("contact", ctx.workspaceId, id, dealsLinkingContacts)
      const doc = read.document
      if (doc === null || doc.deletedAt !== null) return yield* new NotFound({ resource: "contact", id })
      const [known, companies] = yield* Effect.all(
        [settingsOf(deps.storage, deps.settings, ctx, { version: read.settingsVersion }).catalogs, liveCompaniesOf(deps, ctx, [doc.data])],
        { concurrency: 2 }
      )
      const view = contactViewWith(visibleFields(doc.data, known.contact), read.linkedIds, idsOf(companies))
      const data = expandContact(view, {
        ...(expand.success.has("deals")
          ? {
              deals: yield* dealViews(
                deps,
                ctx,
                (yield* dealsNaming(deps, ctx, [id])).map((d) => d.data),
                known.deal
              )
            }
          : {}),
        ...(expand.success.has("companies") ? { companies: yield* shownCompanies(ctx, view, companies, known) } : {}),
        ...(expand.success.has("activities") ? { activities: yield* linkedActivities(deps, ctx, "contact_ids", id) } : {})
      })
      return { data, version: doc.version }
    })

  /** The contact's live companies as the API shows them, in the order of its company_ids (the primary first). */
  const shownCompanies = (
    ctx: RequestContext,
    view: JsonObject,
    companies: ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>,
    known: Catalogs
  ) => {
    const shown = view["company_ids"]
    const order: ReadonlyArray<unknown> = Array.isArray(shown) ? shown : []
    const inOrder = order.flatMap((companyId) => companies.filter((company) => company.id === companyId))
    return companyViews(deps, ctx, inOrder, known.company)
  }

  /**
   * A list page in one round trip (and one read of the page's companies, when its contacts link
   * any): the parameters parsed with the catalog the host kept, the page read with the deals naming
   * each contact and the settings version. Asked again, verified, when
   * that version moved on from the kept one, or when the kept catalog refused the parameters (a
   * custom field defined through another host may be one the filter names).
   */
  const listAt = (
    ctx: RequestContext,
    params: ListParams,
    verify: boolean | { readonly version: number }
  ): Effect.Effect<Page, ValidationError | StorageUnavailable> =>
    Effect.gen(function* () {
      const settings = settingsOf(deps.storage, deps.settings, ctx, verify)
      const { contact } = yield* settings.catalogs
      const kept = !settings.verified()
      const companyId = params["company_id"]
      const where = companyWhere(companyId)
      if (Result.isFailure(where)) return yield* where.failure
      let read: RecordsRead | undefined
      const attempt = listPage(
        deps,
        ctx,
        "contact",
        params,
        {
          catalog: contact,
          scope: "live",
          baseWhere: where.success,
          defaultSort: { field: { name: "created_at", type: "timestamp" }, direction: "asc" },
          allow: { filter: true, search: true, sort: true },
          extraParams: contactListParams
        },
        companyId === undefined ? undefined : Effect.map(companyStates(deps, ctx, [companyId]), ({ live }) => live.has(companyId)),
        (query) =>
          Effect.map(deps.storage.queryRecords("contact", ctx.workspaceId, query, dealsLinkingContacts), (records) => {
            read = records
            return records.rows.map((row) => row.document)
          })
      )
      const page = yield* kept ? Effect.catchTag(attempt, "ValidationError", () => Effect.succeed(null)) : attempt
      if (page === null) return yield* listAt(ctx, params, true)
      if (kept && read !== undefined && read.settingsVersion !== settings.read()?.version) {
        return yield* listAt(ctx, params, { version: read.settingsVersion })
      }
      const dealIds = new Map(read?.rows.map((row) => [row.document.id, row.linkedIds]))
      const companies = idsOf(
        yield* liveCompaniesOf(
          deps,
          ctx,
          page.rows.map((doc) => doc.data)
        )
      )
      return {
        data: page.rows.map((doc) => contactViewWith(visibleFields(doc.data, contact), dealIds.get(doc.id) ?? [], companies)),
        next_cursor: page.next_cursor
      }
    })

  const list = (ctx: RequestContext, params: ListParams) => Effect.flatMap(storableParams(params), (checked) => listAt(ctx, checked, false))

  /**
   * The contact as the write that just committed left it (its own events), with the deals that
   * name it: not a read of the document, which a concurrent write may already have changed. It is
   * the view the outbox made for the write's announcement before the commit, so the answer costs
   * no round trip of its own; a write that committed nothing is shown now.
   */
  const written =
    <P>(ctx: RequestContext, id: string, catalogOf: (prepared: P) => Catalogs) =>
    (handled: Handled<ContactEvent, unknown> & { readonly prepared: P }) =>
      Effect.gen(function* () {
        const announced = announcedRecord(handled.payloads, "contact")
        if (announced !== null) return { data: announced, version: handled.version }
        const projected = handled.projected
        if (projected === null) return yield* new NotFound({ resource: "contact", id })
        return { data: yield* oneContactView(deps, ctx, id, projected.data, catalogOf(handled.prepared).contact), version: handled.version }
      })

  /** A new contact from a body already checked as storable text. */
  const createWrite = (ctx: RequestContext, input: unknown) =>
    Effect.map(
      deps.ids.make(contactAggregate.prefix),
      (id): Write<Versioned> =>
        write(
          deps,
          contactAggregate,
          {
            ...commandOn(ctx, id),
            stream: "new",
            prepare: parsedWith(parseContactCreate, input),
            command: ({ at, prepared }) =>
              Effect.map(unknownCompanies(ctx, input), (unknown) => ({
                type: "CreateContact" as const,
                id,
                at,
                fields: prepared.fields,
                unknownCompanies: unknown
              }))
          },
          written(ctx, id, (prepared) => prepared.known)
        )
    )

  const updateWrite = (ctx: RequestContext, id: string, input: unknown, ifMatch: IfMatch): Write<Versioned> =>
    write(
      deps,
      contactAggregate,
      {
        ...commandOn(ctx, id),
        ifMatch,
        prepare: parsedWith(parseContactPatch, input),
        command: ({ at, prepared: { fields }, projected: current }) =>
          Effect.gen(function* () {
            // A patch of the companies: the named ones must be live; linked ones in the trash are kept.
            const named = namedCompanies(input)
            const linked = fields["company_ids"] === undefined ? [] : linkedCompanyIds(current?.data ?? {})
            const companiesNow = yield* companyStates(deps, ctx, [...named.map((company) => company.id), ...linked])
            return {
              type: "UpdateContact" as const,
              id,
              at,
              fields,
              unknownCompanies: named.filter((company) => !companiesNow.live.has(company.id)),
              trashedCompanyIds: linked.filter((companyId) => companiesNow.trashed.has(companyId))
            }
          })
      },
      written(ctx, id, (prepared) => prepared.known)
    )

  /** An upsert by email: an update of the live contact holding it, or a create with it. */
  const upsertWrite = (ctx: RequestContext, email: string, data: JsonObject) =>
    Effect.flatMap(deps.storage.documentByUniqueKey("contact", ctx.workspaceId, emailKey(email)), (holder) =>
      holder === null
        ? Effect.map(createWrite(ctx, { email, ...data }), (planned) => ({ write: planned, created: true }))
        : Effect.succeed({ write: updateWrite(ctx, holder.id, data, null), created: false })
    )

  const batch = (ctx: RequestContext, body: unknown) =>
    runBatch(deps, ctx, body, {
      create: createWrite,
      update: (ctx, id, data) => updateWrite(ctx, id, data, null),
      upsert: { field: "email", write: upsertWrite }
    })

  const create = (ctx: RequestContext, body: unknown) =>
    Effect.flatMap(storableBody(body), (input) => Effect.flatMap(createWrite(ctx, input), (planned) => planned.run))

  const update = (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) =>
    Effect.flatMap(storableBody(body), (input) => updateWrite(ctx, id, input, ifMatch).run)

  const remove = (ctx: RequestContext, id: string, ifMatch: IfMatch) =>
    Effect.gen(function* () {
      yield* handleCommand(deps, contactAggregate, {
        ...commandOn(ctx, id),
        ifMatch,
        command: ({ at }) => Effect.succeed({ type: "DeleteContact" as const, id, at })
      })
    })

  const restore = (ctx: RequestContext, id: string) =>
    write(
      deps,
      contactAggregate,
      {
        ...commandOn(ctx, id),
        command: ({ at }) => Effect.succeed({ type: "RestoreContact" as const, id, at })
      },
      written(ctx, id, (prepared) => prepared)
    ).run

  const history = (ctx: RequestContext, id: string, params: ListParams) =>
    Effect.flatMap(catalogs(deps, ctx), ({ contact }) => historyPage(deps, ctx, contactAggregate, id, params, contact))

  const getAsOf = (ctx: RequestContext, id: string, asOf: string) =>
    Effect.gen(function* () {
      const instant = yield* parseAsOf(asOf)
      return yield* contactAsOf(deps, ctx, id, instant, (yield* catalogs(deps, ctx)).contact)
    })

  return { list, get, getAsOf, create, update, delete: remove, restore, history, batch }
}
