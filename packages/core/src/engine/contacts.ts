import { Effect, Result } from "effect"
import { foldProjection } from "../aggregate.js"
import {
  activityFeed,
  contactAggregate,
  type ContactEvent,
  contactView,
  expandContact,
  parseContactCreate,
  parseContactPatch,
  parseExpand,
  projectContact
} from "../contact/index.js"
import { dealAggregate } from "../deal/index.js"
import { NotFound } from "../errors.js"
import { contactViews, dealsNaming, oneContactView } from "./contactViews.js"
import { type Catalogs, catalogs } from "./customFields.js"
import { dealViews } from "./dealViews.js"
import type { EngineDeps } from "./deps.js"
import type { IfMatch, ListParams, RequestContext } from "./Engine.js"
import { type Handled, handleCommand, type LoadedStream, loadStream } from "./handleCommand.js"
import { listPage } from "./listPage.js"
import { outbox } from "./outbox.js"
import { visibleFields } from "./reads.js"
import { storableBody } from "./storable.js"

/** A loaded stream's events with where each was recorded, as the activity feed takes them. */
const recorded = <E>(loaded: LoadedStream<E>) => loaded.history.map((event, i) => ({ event, recorded: loaded.stored[i]! }))

export const makeContacts = (deps: EngineDeps) => {
  /** What every contact command shares: its stream, the workspace's definitions, the outbox. */
  const commandOn = (ctx: RequestContext, id: string, known: Catalogs) => ({
    ctx,
    streamId: id,
    definitions: known.defs,
    also: outbox(deps, ctx, contactAggregate, (data) => oneContactView(deps, ctx, id, data, known.contact))
  })

  const activities = (ctx: RequestContext, contactId: string, dealIds: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const contact = yield* loadStream(deps, contactAggregate, ctx, contactId)
      const deals = yield* Effect.forEach(dealIds, (id) => loadStream(deps, dealAggregate, ctx, id))
      return activityFeed([...recorded(contact), ...deals.flatMap(recorded)])
    })

  const liveDocument = (ctx: RequestContext, id: string) =>
    Effect.flatMap(deps.storage.getDocument("contact", ctx.workspaceId, id), (doc) =>
      doc === null || doc.deletedAt !== null ? Effect.fail(new NotFound({ resource: "contact", id })) : Effect.succeed(doc))

  const get = (ctx: RequestContext, id: string, expandRaw: string | null) =>
    Effect.gen(function*() {
      const expand = parseExpand(expandRaw)
      if (Result.isFailure(expand)) return yield* expand.failure
      const doc = yield* liveDocument(ctx, id)
      const { contact, deal } = yield* catalogs(deps, ctx)
      const deals = yield* dealsNaming(deps, ctx, [id])
      const view = contactView(id, visibleFields(doc.data, contact), deals)
      const data = expandContact(view, {
        ...(expand.success.has("deals") ? { deals: yield* dealViews(deps, ctx, deals.map((d) => d.data), deal) } : {}),
        ...(expand.success.has("activities") ? { activities: yield* activities(ctx, id, deals.map((d) => d.id)) } : {})
      })
      return { data, version: doc.version }
    })

  const list = (ctx: RequestContext, params: ListParams) =>
    Effect.gen(function*() {
      const { contact } = yield* catalogs(deps, ctx)
      const page = yield* listPage(deps, ctx, "contact", params, {
        catalog: contact,
        scope: "live",
        baseWhere: { _tag: "True" },
        defaultSort: { field: { name: "created_at", type: "timestamp" }, direction: "asc" },
        allow: { filter: true, search: true, sort: true },
        extraParams: []
      })
      return { data: yield* contactViews(deps, ctx, page.rows, contact), next_cursor: page.next_cursor }
    })

  /**
   * The contact as the write that just committed left it (its own events), with the deals that
   * name it: not a read of the document, which a concurrent write may already have changed.
   */
  const written = (ctx: RequestContext, id: string, handled: Handled<ContactEvent>, known: Catalogs) =>
    Effect.gen(function*() {
      const projected = foldProjection(projectContact, handled.all)
      if (projected === null) return yield* new NotFound({ resource: "contact", id })
      return { data: yield* oneContactView(deps, ctx, id, projected.data, known.contact), version: handled.version }
    })

  const create = (ctx: RequestContext, body: unknown) =>
    Effect.gen(function*() {
      const known = yield* catalogs(deps, ctx)
      const fields = parseContactCreate(yield* storableBody(body), known.defs)
      if (Result.isFailure(fields)) return yield* fields.failure
      const id = yield* deps.ids.make(contactAggregate.prefix)
      const handled = yield* handleCommand(deps, contactAggregate, {
        ...commandOn(ctx, id, known),
        stream: "new",
        command: ({ at }) => Effect.succeed({ type: "CreateContact" as const, id, at, fields: fields.success })
      })
      // Nothing is read back: the document is what was just written, and no deal can name a contact
      // before it exists (deals check their contact ids).
      const created = foldProjection(projectContact, handled.all)
      if (created === null) return yield* new NotFound({ resource: "contact", id })
      return { data: contactView(id, visibleFields(created.data, known.contact), []), version: handled.version }
    })

  const update = (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) =>
    Effect.gen(function*() {
      const known = yield* catalogs(deps, ctx)
      const fields = parseContactPatch(yield* storableBody(body), known.defs)
      if (Result.isFailure(fields)) return yield* fields.failure
      const handled = yield* handleCommand(deps, contactAggregate, {
        ...commandOn(ctx, id, known),
        ifMatch,
        command: ({ at }) => Effect.succeed({ type: "UpdateContact" as const, id, at, fields: fields.success })
      })
      return yield* written(ctx, id, handled, known)
    })

  const remove = (ctx: RequestContext, id: string, ifMatch: IfMatch) =>
    Effect.gen(function*() {
      yield* handleCommand(deps, contactAggregate, {
        ...commandOn(ctx, id, yield* catalogs(deps, ctx)),
        ifMatch,
        command: ({ at }) => Effect.succeed({ type: "DeleteContact" as const, id, at })
      })
    })

  const restore = (ctx: RequestContext, id: string) =>
    Effect.gen(function*() {
      const known = yield* catalogs(deps, ctx)
      const handled = yield* handleCommand(deps, contactAggregate, {
        ...commandOn(ctx, id, known),
        command: ({ at }) => Effect.succeed({ type: "RestoreContact" as const, id, at })
      })
      return yield* written(ctx, id, handled, known)
    })

  return { list, get, create, update, delete: remove, restore }
}
