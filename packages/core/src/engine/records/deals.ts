import { Effect, Result } from "effect"
import {
  companyIdOf,
  contactIdsOf,
  dealAggregate as deals,
  expandDeal,
  type DealRule,
  parseDealCreate,
  parseDealExpand,
  parseDealPatch,
  parseStageMove,
  timelineEntryOf,
  timelineEntryView,
  withDealRules
} from "../../deal/index.js"
import { NotFound } from "../../errors.js"
import type { Json } from "../../json.js"
import { dealListParams, dealParamsWhere } from "../../query/index.js"
import { type FieldCatalog, fieldInfo } from "../../query/fields.js"
import { dealAsOf, parseAsOf } from "../views/asOf.js"
import { linkedActivities } from "../views/activityViews.js"
import { companyStates, companyViews } from "../views/companyViews.js"
import { contactStates } from "../views/contactViews.js"
import { dealView, dealViews } from "../views/dealViews.js"
import type { EngineDeps } from "../base/deps.js"
import type { IfMatch, ListParams, RequestContext } from "../contract/Engine.js"
import { handleCommand } from "../commands/handleCommand.js"
import { listPage } from "../views/listPage.js"
import { catalogs } from "../base/settings.js"
import { queryAll } from "../base/reads.js"
import { pipelineInfoOfView } from "../../pipeline/projection.js"
import { storableBody, storableParams } from "../base/storable.js"
import { makeRecordService } from "./recordService.js"

const timelineCatalog = new Map([
  ["deal_id", fieldInfo("deal_id", "id")],
  ["changed_at", fieldInfo("changed_at", "timestamp")]
])

const stringsOf = (value: Json | undefined): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []

/** The deal operations; `rules` (DealRules) decide every deal command after the deal's own. */
export const makeDeals = (deps: EngineDeps, rules: ReadonlyArray<DealRule> = []) => {
  const dealAggregate = rules.length === 0 ? deals : { ...deals, decider: withDealRules(deals.decider, rules) }

  /** Contact ids of this workspace that are not live contacts (unknown, deleted, or another's). */
  const unknownContacts = (ctx: RequestContext, ids: ReadonlyArray<string>) =>
    Effect.map(contactStates(deps, ctx, ids), ({ live }) => ids.filter((id) => !live.has(id)))

  /** A company_id written that names no live company of the workspace; null when it does, or when none is written. */
  const unknownCompany = (ctx: RequestContext, companyId: Json | undefined) =>
    typeof companyId !== "string"
      ? Effect.succeed(null)
      : Effect.map(companyStates(deps, ctx, [companyId]), ({ live }) => (live.has(companyId) ? null : companyId))

  const service = makeRecordService(deps, {
    aggregate: dealAggregate,
    collection: "deal",
    catalog: (known) => known.deal,
    parse: { create: parseDealCreate, patch: parseDealPatch },
    commands: {
      create: ({ at, ctx, id, settings }, fields) =>
        Effect.gen(function* () {
          const pipelineId = fields["pipeline_id"]
          return {
            type: "CreateDeal" as const,
            id,
            at,
            fields,
            pipeline: typeof pipelineId === "string" ? yield* settings.pipeline(pipelineId) : null,
            unknownContactIds: yield* unknownContacts(ctx, stringsOf(fields["contact_ids"])),
            unknownCompanyId: yield* unknownCompany(ctx, fields["company_id"])
          }
        }),
      update: ({ at, ctx, current, id, settings }, fields) =>
        Effect.gen(function* () {
          // Made per attempt, so a retried move gets an id after the move it lost to.
          const entryId = yield* deps.ids.make("tle")
          // A patch of contact_ids: the given ids must be live; linked ones in the trash are kept.
          const named = stringsOf(fields["contact_ids"])
          const linked = fields["contact_ids"] === undefined ? [] : contactIdsOf(current?.data ?? {})
          const contactsNow = yield* contactStates(deps, ctx, [...named, ...linked])
          // A patch of company_id: a given one must be live; null keeps one in the trash.
          const linkedCompany = fields["company_id"] === null ? companyIdOf(current?.data ?? {}) : null
          const companyNow = linkedCompany === null ? null : yield* companyStates(deps, ctx, [linkedCompany])
          const given = fields["pipeline_id"]
          const currentId = current?.data["pipeline_id"]
          const pipelineId = typeof given === "string" ? given : currentId
          // The pipeline it leaves, when it changes: its stage's outcome says whether leaving it reopens the deal.
          const leaves = typeof given === "string" && given !== currentId && typeof currentId === "string"
          return {
            type: "UpdateDeal" as const,
            id,
            at,
            fields,
            entryId,
            targetPipeline: typeof pipelineId === "string" ? yield* settings.pipeline(pipelineId) : null,
            ...(leaves ? { currentPipeline: yield* settings.pipeline(currentId) } : {}),
            unknownContactIds: named.filter((contactId) => !contactsNow.live.has(contactId)),
            trashedContactIds: linked.filter((contactId) => contactsNow.trashed.has(contactId)),
            unknownCompanyId: yield* unknownCompany(ctx, fields["company_id"]),
            trashedCompanyId: linkedCompany !== null && companyNow?.trashed.has(linkedCompany) === true ? linkedCompany : null
          }
        }),
      delete: (id, at) => ({ type: "DeleteDeal" as const, id, at }),
      restore: (id, at, relink) => ({ type: "RestoreDeal" as const, id, at, fields: relink })
    },
    views: (ctx, rows, catalog) =>
      dealViews(
        deps,
        ctx,
        rows.map((row) => row.data),
        catalog
      )
  })

  /** A live deal as the API shows it, with the catalog in hand (after a write, say). */
  const readDeal = (ctx: RequestContext, id: string, deal: FieldCatalog) =>
    Effect.gen(function* () {
      const doc = yield* deps.storage.getDocument("deal", ctx.workspaceId, id)
      if (doc === null || doc.deletedAt !== null) return yield* new NotFound({ resource: "deal", id })
      return { data: yield* dealView(deps, ctx, doc.data, deal), version: doc.version }
    })

  /** expand: the raw `expand` parameter (`companies,activities`) or null. */
  const get = (ctx: RequestContext, id: string, expandRaw: string | null = null) =>
    Effect.gen(function* () {
      const expand = parseDealExpand(expandRaw)
      if (Result.isFailure(expand)) return yield* expand.failure
      const known = yield* catalogs(deps, ctx)
      const deal = yield* readDeal(ctx, id, known.deal)
      if (expand.success.size === 0) return deal
      // The company as shown: company_id is null unless it is live, and then it is read again.
      const companyId = companyIdOf(deal.data)
      const companies =
        expand.success.has("companies") && companyId !== null
          ? (yield* deps.storage.getDocuments("company", ctx.workspaceId, [companyId])).filter((doc) => doc.deletedAt === null)
          : []
      const data = expandDeal(deal.data, {
        ...(expand.success.has("companies") ? { companies: yield* companyViews(deps, ctx, companies, known.company) } : {}),
        ...(expand.success.has("activities") ? { activities: yield* linkedActivities(deps, ctx, "deal_ids", id) } : {})
      })
      return { data, version: deal.version }
    })

  /**
   * The deal list's fields: the catalog, and the derived weighted_value to sort by, with the stages'
   * probabilities as the workspace's pipelines have them now (read only when a list sorts by it).
   */
  const listCatalog = (ctx: RequestContext, deal: FieldCatalog, sort: string | undefined) =>
    Effect.gen(function* () {
      const sorted = sort === "weighted_value" || sort === "-weighted_value"
      const pipelines = sorted ? yield* queryAll(deps, "pipeline", ctx.workspaceId, { _tag: "True" }) : []
      const stages = pipelines.flatMap((doc) =>
        pipelineInfoOfView(doc.data).stages.flatMap((stage) =>
          stage.probability === undefined ? [] : [[stage.id, stage.probability] as const]
        )
      )
      const weighted = fieldInfo("weighted_value", "number", { sortable: true })
      return new Map([...deal, ["weighted_value", { ...weighted, derived: { _tag: "Weighted", stages } }]]) as FieldCatalog
    })

  const list = (ctx: RequestContext, params: ListParams) =>
    Effect.gen(function* () {
      const deal = yield* listCatalog(ctx, (yield* catalogs(deps, ctx)).deal, params["sort"])
      const where = dealParamsWhere(yield* storableParams(params), deal)
      if (Result.isFailure(where)) return yield* where.failure
      // A contact or company in the trash is on no deal as shown, so no deal lists it.
      const contactId = params["contact_id"]
      const companyId = params["company_id"]
      const admitted = [
        ...(contactId === undefined ? [] : [Effect.map(contactStates(deps, ctx, [contactId]), ({ live }) => live.has(contactId))]),
        ...(companyId === undefined ? [] : [Effect.map(companyStates(deps, ctx, [companyId]), ({ live }) => live.has(companyId))])
      ]
      const page = yield* listPage(
        deps,
        ctx,
        "deal",
        params,
        {
          catalog: deal,
          scope: "live",
          baseWhere: where.success,
          defaultSort: { field: { name: "created_at", type: "timestamp" }, direction: "asc" },
          allow: { filter: true, search: true, sort: true },
          extraParams: dealListParams
        },
        admitted.length === 0 ? undefined : Effect.map(Effect.all(admitted, { concurrency: 2 }), (live) => live.every(Boolean))
      )
      return {
        data: yield* dealViews(
          deps,
          ctx,
          page.rows.map((row) => row.data),
          deal
        ),
        next_cursor: page.next_cursor
      }
    })

  const moveStage = (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) =>
    Effect.gen(function* () {
      const move = parseStageMove(yield* storableBody(body))
      if (Result.isFailure(move)) return yield* move.failure
      const result = yield* handleCommand(deps, dealAggregate, {
        ...service.writes.commandOn(ctx, id),
        ifMatch,
        command: ({ at, projected, settings }) =>
          Effect.gen(function* () {
            // Made per attempt, so a retried move gets an id after the move it lost to.
            const entryId = yield* deps.ids.make("tle")
            const pipelineId = projected?.data["pipeline_id"]
            const pipeline = typeof pipelineId === "string" ? yield* settings.pipeline(pipelineId) : null
            if (pipeline === null) return yield* new NotFound({ resource: "pipeline", id: String(pipelineId) })
            return {
              type: "MoveStage" as const,
              id,
              at,
              stageId: move.success.stage_id,
              reason: move.success.reason,
              ...(move.success.lost_reason === undefined ? {} : { lostReason: move.success.lost_reason }),
              entryId,
              pipeline
            }
          })
      })
      const deal = yield* service.writes.written(ctx, id)(result)
      const moved = result.fresh.find((event) => event.type === "deal.stage_changed")
      const entry = moved === undefined ? null : timelineEntryOf(id, moved)
      return { data: { deal: deal.data, timeline_entry: entry }, version: deal.version }
    })

  const timeline = (ctx: RequestContext, id: string, params: ListParams) =>
    Effect.gen(function* () {
      yield* get(ctx, id)
      const page = yield* listPage(deps, ctx, "timeline_entry", params, {
        catalog: timelineCatalog,
        scope: "live",
        baseWhere: { _tag: "Compare", field: { name: "deal_id", type: "id" }, op: "eq", value: id },
        defaultSort: { field: { name: "changed_at", type: "timestamp" }, direction: "asc" },
        allow: { filter: false, search: false, sort: false },
        extraParams: []
      })
      return { data: page.rows.map((row) => timelineEntryView(row.data)), next_cursor: page.next_cursor }
    })

  const getAsOf = (ctx: RequestContext, id: string, asOf: string) =>
    Effect.gen(function* () {
      const instant = yield* parseAsOf(asOf)
      return yield* dealAsOf(deps, ctx, id, instant, (yield* catalogs(deps, ctx)).deal)
    })

  return { ...service, list, get, getAsOf, moveStage, timeline }
}
