import { Effect, Result } from "effect"
import { contactDecider, type ContactEvent, parseContactCreate, parseContactPatch, projectContact } from "../contact/index.js"
import { Conflict, NotFound, ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"
import { paginate, parseListQuery, searchFieldsOf } from "../query/index.js"
import type { Expr } from "../query/ast.js"
import type { CustomFieldDefinition } from "../customField/definition.js"
import { catalogOf, type FieldCatalog } from "../query/fields.js"
import type { StoredDocument } from "../storage/documents.js"
import type { StoredEvent } from "../storage/events.js"
import type { UniqueViolation } from "../storage/Storage.js"
import type { CustomFields } from "./customFields.js"
import type { EngineDeps } from "./deps.js"
import { storableBody, storableParams } from "./storable.js"
import { dealViews } from "./dealViews.js"
import { contactDocuments } from "./documents.js"
import type { IfMatch, ListParams, RequestContext } from "./Engine.js"
import { type Executed, execute, foldProjection } from "./execute.js"
import { outboxFor } from "./outbox.js"
import { queryAll, visibleFields } from "./reads.js"

const ACTIVITY_LIMIT = 100
const contactIdsField = { name: "contact_ids", type: "id_array" } as const

const emailTaken = (violation: UniqueViolation) =>
  new Conflict({
    message: "a live contact with this email already exists",
    details: [{ path: "email", message: `is already used by ${violation.existingId}`, id: violation.existingId }]
  })

const parseExpand = (raw: string | null) => {
  const wanted = new Set<string>()
  if (raw === null || raw.trim() === "") return Result.succeed(wanted)
  for (const part of raw.split(",")) {
    const value = part.trim()
    if (value !== "deals" && value !== "activities") {
      return Result.fail(ValidationError.at("expand", `has an unknown value ${JSON.stringify(value)}; use deals, activities`))
    }
    wanted.add(value)
  }
  return Result.succeed(wanted)
}

/** A contact event or one of its deals' events, as an entry of the contact's activity feed. */
const activityOf = (event: StoredEvent): JsonObject | null => {
  const data = event.data
  const at = typeof data["at"] === "string" ? data["at"] : event.recordedAt
  const base = (payload: JsonObject) => ({
    id: `act_${event.metadata.eventId.replace(/^evt_/, "")}`,
    type: event.type,
    occurred_at: at,
    data: payload
  })
  switch (event.type) {
    case "contact.created":
      return base((data["fields"] ?? {}) as JsonObject)
    case "contact.updated":
      return base({ changed_fields: data["changed"] ?? {} })
    case "contact.deleted":
    case "contact.restored":
      return base({})
    case "deal.created":
      return base({ deal_id: event.streamId, ...((data["fields"] ?? {}) as JsonObject) })
    case "deal.updated":
      return base({ deal_id: event.streamId, changed_fields: data["changed"] ?? {} })
    case "deal.stage_changed":
      return base({
        deal_id: event.streamId,
        from_stage_id: data["from_stage_id"] ?? null,
        to_stage_id: data["to_stage_id"] ?? null,
        reason: data["reason"] ?? null
      })
    default:
      return null
  }
}

/** A workspace's custom field definitions and the field catalogs of contacts and deals built from them. */
export interface Catalogs {
  readonly defs: ReadonlyArray<CustomFieldDefinition>
  readonly contact: FieldCatalog
  readonly deal: FieldCatalog
}

const viewOf = (data: JsonObject, deals: ReadonlyArray<StoredDocument>, contactCatalog: FieldCatalog): JsonObject => {
  const companyId = data["company_id"]
  return {
    ...visibleFields(data, contactCatalog),
    deal_ids: deals.map((deal) => deal.id),
    company_ids: typeof companyId === "string" ? [companyId] : []
  }
}

export const makeContacts = (deps: EngineDeps, customFields: CustomFields) => {
  const catalogs = (ctx: RequestContext) =>
    Effect.map(customFields.definitions(ctx), (defs): Catalogs => ({
      defs,
      contact: catalogOf("contact", defs),
      deal: catalogOf("deal", defs)
    }))

  /** The live deals linked to any of `contactIds`, found through the deals' own contact_ids. */
  const dealsOf = (ctx: RequestContext, contactIds: ReadonlyArray<string>) => {
    if (contactIds.length === 0) return Effect.succeed([] as ReadonlyArray<StoredDocument>)
    const where: Expr = contactIds.length === 1
      ? { _tag: "HasElement", field: contactIdsField, value: contactIds[0]! }
      : { _tag: "Or", exprs: contactIds.map((value) => ({ _tag: "HasElement", field: contactIdsField, value })) }
    return queryAll(deps, "deal", ctx.workspaceId, where)
  }

  /** The API shape of contacts: visible fields, then the derived deal_ids and company_ids. */
  const views = (ctx: RequestContext, docs: ReadonlyArray<StoredDocument>, contactCatalog: FieldCatalog) =>
    Effect.map(dealsOf(ctx, docs.map((d) => d.id)), (deals) =>
      docs.map((doc) =>
        viewOf(
          doc.data,
          deals.filter((deal) => (deal.data["contact_ids"] as ReadonlyArray<Json> | undefined)?.includes(doc.id)),
          contactCatalog
        )
      ))

  const activities = (ctx: RequestContext, contactId: string, dealIds: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const streams = yield* Effect.forEach([contactId, ...dealIds], (id) => deps.storage.readStream(id))
      return streams.flat()
        .filter((event) => event.metadata.workspaceId === ctx.workspaceId)
        .sort((a, b) => b.sequence - a.sequence)
        .flatMap((event) => {
          const activity = activityOf(event)
          return activity === null ? [] : [activity]
        })
        .slice(0, ACTIVITY_LIMIT)
    })

  const liveDocument = (ctx: RequestContext, id: string) =>
    Effect.flatMap(deps.storage.getDocument("contact", ctx.workspaceId, id), (doc) =>
      doc === null || doc.deletedAt !== null ? Effect.fail(new NotFound({ resource: "contact", id })) : Effect.succeed(doc))

  const get = (ctx: RequestContext, id: string, expandRaw: string | null) =>
    Effect.gen(function*() {
      const expand = parseExpand(expandRaw)
      if (Result.isFailure(expand)) return yield* expand.failure
      const doc = yield* liveDocument(ctx, id)
      const { contact, deal } = yield* catalogs(ctx)
      const [view] = yield* views(ctx, [doc], contact)
      let data: JsonObject = view!
      const dealIds = data["deal_ids"] as ReadonlyArray<string>
      if (expand.success.has("deals")) {
        const deals = yield* dealsOf(ctx, [id])
        const { deal_ids: _ignored, ...rest } = data
        data = { ...rest, deals: yield* dealViews(deps, ctx, deals.map((d) => d.data), deal) }
      }
      if (expand.success.has("activities")) {
        data = { ...data, activities: yield* activities(ctx, id, dealIds) }
      }
      return { data, version: doc.version }
    })

  const list = (ctx: RequestContext, params: ListParams) =>
    Effect.gen(function*() {
      const { contact } = yield* catalogs(ctx)
      const parsed = parseListQuery(yield* storableParams(params), {
        catalog: contact,
        scope: "live",
        baseWhere: { _tag: "True" },
        defaultSort: { field: { name: "created_at", type: "timestamp" }, direction: "asc" },
        allow: { filter: true, search: true, sort: true },
        extraParams: []
      })
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const query = parsed.success
      const rows = yield* deps.storage.queryDocuments("contact", ctx.workspaceId, { ...query, limit: query.limit + 1 })
      const page = paginate(rows, query)
      return { data: yield* views(ctx, page.rows, contact), next_cursor: page.next_cursor }
    })

  /**
   * What every contact command shares; the search fields depend on the workspace's custom fields,
   * which the command has read once already (`catalogs`), so they are passed in, not read again.
   */
  const run = (ctx: RequestContext, id: string, ifMatch: IfMatch, creates: boolean, { contact }: Catalogs) => ({
    ctx,
    streamId: id,
    resource: "contact",
    decider: contactDecider,
    ifMatch,
    creates,
    documents: contactDocuments(ctx.workspaceId, id, searchFieldsOf(contact)),
    also: outboxFor(deps, ctx, projectContact, (data) =>
      Effect.map(
        views(ctx, [{ collection: "contact", workspaceId: ctx.workspaceId, id, version: 0, deletedAt: null, data }], contact),
        (rows) => rows[0]!
      )),
    onUniqueViolation: emailTaken
  })

  /**
   * The contact as the write that just committed left it (its own events), with the deals that
   * name it: not a read of the document, which a concurrent write may already have changed.
   */
  const written = (ctx: RequestContext, id: string, executed: Executed<ContactEvent>, { contact }: Catalogs) =>
    Effect.gen(function*() {
      const projected = foldProjection(projectContact, executed.all)
      if (projected === null) return yield* new NotFound({ resource: "contact", id })
      const doc: StoredDocument = { collection: "contact", workspaceId: ctx.workspaceId, id, version: executed.version, ...projected }
      const [view] = yield* views(ctx, [doc], contact)
      return { data: view!, version: executed.version }
    })

  const create = (ctx: RequestContext, body: unknown) =>
    Effect.gen(function*() {
      const known = yield* catalogs(ctx)
      const fields = parseContactCreate(yield* storableBody(body), known.defs)
      if (Result.isFailure(fields)) return yield* fields.failure
      const id = yield* deps.ids.make("con")
      const executed = yield* execute(deps, {
        ...run(ctx, id, null, true, known),
        newStream: true,
        command: ({ at }) => Effect.succeed({ type: "CreateContact" as const, id, at, fields: fields.success })
      })
      // Nothing is read back: the document is what was just written, and no deal can name a contact
      // before it exists (deals check their contact ids).
      const created = foldProjection(projectContact, executed.all)
      if (created === null) return yield* new NotFound({ resource: "contact", id })
      return { data: viewOf(created.data, [], known.contact), version: executed.version }
    })

  const update = (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) =>
    Effect.gen(function*() {
      const known = yield* catalogs(ctx)
      const fields = parseContactPatch(yield* storableBody(body), known.defs)
      if (Result.isFailure(fields)) return yield* fields.failure
      const executed = yield* execute(deps, {
        ...run(ctx, id, ifMatch, false, known),
        command: ({ at }) => Effect.succeed({ type: "UpdateContact" as const, id, at, fields: fields.success })
      })
      return yield* written(ctx, id, executed, known)
    })

  const remove = (ctx: RequestContext, id: string, ifMatch: IfMatch) =>
    Effect.gen(function*() {
      yield* execute(deps, {
        ...run(ctx, id, ifMatch, false, yield* catalogs(ctx)),
        command: ({ at }) => Effect.succeed({ type: "DeleteContact" as const, id, at })
      })
    })

  const restore = (ctx: RequestContext, id: string) =>
    Effect.gen(function*() {
      const known = yield* catalogs(ctx)
      const executed = yield* execute(deps, {
        ...run(ctx, id, null, false, known),
        onUniqueViolation: (violation: UniqueViolation) =>
          new Conflict({
            message: "the contact's email is now used by another live contact",
            details: [{ path: "email", message: `is now used by ${violation.existingId}`, id: violation.existingId }]
          }),
        command: ({ at }) => Effect.succeed({ type: "RestoreContact" as const, id, at })
      })
      return yield* written(ctx, id, executed, known)
    })

  const purge = (ctx: RequestContext, id: string) =>
    Effect.gen(function*() {
      yield* execute(deps, {
        ...run(ctx, id, null, false, yield* catalogs(ctx)),
        redact: true,
        command: ({ at }) => Effect.succeed({ type: "PurgeContact" as const, id, at })
      })
    })

  return { list, get, create, update, delete: remove, restore, purge, views, catalogs }
}

export type Contacts = ReturnType<typeof makeContacts>
