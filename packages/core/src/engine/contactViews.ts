import { Effect } from "effect"
import { contactView } from "../contact/index.js"
import type { JsonObject } from "../json.js"
import type { Expr } from "../query/ast.js"
import type { FieldCatalog } from "../query/fields.js"
import type { StoredDocument } from "../storage/documents.js"
import type { EngineDeps } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { queryAll, visibleFields } from "./reads.js"

const contactIdsField = { name: "contact_ids", type: "id_array" } as const

/** The live deals linked to any of `contactIds`, found through the deals' own contact_ids. */
export const dealsNaming = (deps: EngineDeps, ctx: RequestContext, contactIds: ReadonlyArray<string>) => {
  if (contactIds.length === 0) return Effect.succeed<ReadonlyArray<StoredDocument>>([])
  const where: Expr = contactIds.length === 1
    ? { _tag: "HasElement", field: contactIdsField, value: contactIds[0]! }
    : { _tag: "Or", exprs: contactIds.map((value) => ({ _tag: "HasElement", field: contactIdsField, value })) }
  return queryAll(deps, "deal", ctx.workspaceId, where)
}

/**
 * Contacts as the API shows them (a get, a list page, the trash, a write's answer, a webhook
 * payload): visible fields, then the derived deal_ids and company_ids, the deals read for all of
 * them at once.
 */
export const contactViews = (
  deps: EngineDeps,
  ctx: RequestContext,
  contacts: ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>,
  catalog: FieldCatalog
) =>
  Effect.map(dealsNaming(deps, ctx, contacts.map((contact) => contact.id)), (deals) =>
    contacts.map((contact) => contactView(contact.id, visibleFields(contact.data, catalog), deals)))

export const oneContactView = (deps: EngineDeps, ctx: RequestContext, id: string, data: JsonObject, catalog: FieldCatalog) =>
  Effect.map(contactViews(deps, ctx, [{ id, data }], catalog), ([view]) => view!)
