import { mergedIntoOf } from "../../record/merge.js"
import { Effect, Result } from "effect"
import {
  contactAggregate,
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
import type { StoredDocument } from "../../storage/documents.js"
import type { FieldCatalog } from "../../query/fields.js"
import { linkedActivities } from "../views/activityViews.js"
import { companyStates, companyViews } from "../views/companyViews.js"
import { contactViews, dealsNaming, idsOf, liveCompaniesOf, withLiveCompaniesOf } from "../views/contactViews.js"
import type { Catalogs } from "../base/settings.js"
import { dealViews } from "../views/dealViews.js"
import type { EngineDeps } from "../base/deps.js"
import type { ListParams, Page, RequestContext } from "../contract/Engine.js"
import { contactAsOf, parseAsOf } from "../views/asOf.js"
import { catalogs, settingsOf } from "../base/settings.js"
import { listPageRead } from "../views/listPage.js"
import { visibleFields } from "../base/reads.js"
import { storableParams } from "../base/storable.js"
import { makeRecordService } from "./recordService.js"

/** The deals whose contact_ids name a contact: its derived deal_ids. */
const dealsLinkingContacts = { collection: "deal", field: "contact_ids" } as const

/**
 * A list page's contacts as shown, each with the deals its read found naming it (`read`'s rows are
 * the page's documents in order, and one beyond). Built here rather than by a callback inside the
 * list's generator: a value such a callback captures is stored in the generator's context once the
 * page is read, and an export's pages kept that way outlived young-generation collections, growing
 * the host's memory as listPageRead says.
 */
const pageViews = (
  rows: ReadonlyArray<StoredDocument>,
  read: RecordsRead | null,
  catalog: FieldCatalog,
  companies: ReadonlySet<string>
): ReadonlyArray<JsonObject> => {
  const linked = read?.rows ?? []
  return rows.map((doc, i) => contactViewWith(visibleFields(doc.data, catalog), linked[i]?.linkedIds ?? [], companies))
}

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

  const service = makeRecordService(deps, {
    aggregate: contactAggregate,
    collection: "contact",
    catalog: (known) => known.contact,
    parse: { create: parseContactCreate, patch: parseContactPatch },
    commands: {
      create: ({ at, ctx, id }, fields, input) =>
        Effect.map(unknownCompanies(ctx, input), (unknown) => ({
          type: "CreateContact" as const,
          id,
          at,
          fields,
          unknownCompanies: unknown
        })),
      update: ({ at, ctx, current, id }, fields, input) =>
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
        }),
      delete: (id, at) => ({ type: "DeleteContact" as const, id, at }),
      restore: (id, at, relink) => ({ type: "RestoreContact" as const, id, at, fields: relink })
    },
    views: (ctx, rows, catalog) => contactViews(deps, ctx, rows, catalog),
    // No deal can name a contact before it exists (deals check their contact ids), and the companies
    // it names were found live by this very command: a new one's view needs no read.
    createdView: (id, data, catalog) => contactView(id, visibleFields(data, catalog), [], new Set(linkedCompanyIds(data))),
    unique: { field: "email", key: emailKey }
  })

  const get = (ctx: RequestContext, id: string, expandRaw: string | null) =>
    Effect.gen(function* () {
      const expand = parseExpand(expandRaw)
      if (Result.isFailure(expand)) return yield* expand.failure
      // The document, the ids of the deals naming it and the settings version: one round trip; then
      // its companies (none to read for most contacts) beside the catalogs, when those are not kept.
      const read = yield* deps.storage.readRecord("contact", ctx.workspaceId, id, dealsLinkingContacts)
      const doc = read.document
      if (doc === null || doc.deletedAt !== null) return yield* new NotFound({ resource: "contact", id, ...mergedIntoOf(doc?.data) })
      const [known, companies] = yield* withLiveCompaniesOf(
        deps,
        ctx,
        [doc.data],
        settingsOf(deps.storage, deps.settings, ctx, { version: read.settingsVersion }).catalogs
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
      const attempt = listPageRead(
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
        {
          read: (query) => deps.storage.queryRecords("contact", ctx.workspaceId, query, dealsLinkingContacts),
          documents: (records: RecordsRead) => records.rows.map((row) => row.document)
        }
      )
      const page = yield* kept ? Effect.catchTag(attempt, "ValidationError", () => Effect.succeed(null)) : attempt
      if (page === null) return yield* listAt(ctx, params, true)
      const read = page.answer
      if (kept && read !== null && read.settingsVersion !== settings.read()?.version) {
        return yield* listAt(ctx, params, { version: read.settingsVersion })
      }
      const companies = idsOf(
        yield* liveCompaniesOf(
          deps,
          ctx,
          page.rows.map((doc) => doc.data)
        )
      )
      return {
        data: pageViews(page.rows, read, contact, companies),
        next_cursor: page.next_cursor
      }
    })

  const list = (ctx: RequestContext, params: ListParams) => Effect.flatMap(storableParams(params), (checked) => listAt(ctx, checked, false))

  const getAsOf = (ctx: RequestContext, id: string, asOf: string) =>
    Effect.gen(function* () {
      const instant = yield* parseAsOf(asOf)
      return yield* contactAsOf(deps, ctx, id, instant, (yield* catalogs(deps, ctx)).contact)
    })

  return { ...service, list, get, getAsOf }
}
