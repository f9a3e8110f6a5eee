import { Effect } from "effect"
import { contactView, linkedCompanyIds } from "../../contact/index.js"
import type { StorageUnavailable } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { FieldCatalog } from "../../query/fields.js"
import type { StoredDocument } from "../../storage/documents.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { liveNaming, recordStates, visibleFields } from "../base/reads.js"

const contactIdsField = { name: "contact_ids", type: "id_array" } as const

/** Which of these contact ids name contacts of the workspace that are live, and which are in its trash. */
export const contactStates = (deps: EngineDeps, ctx: RequestContext, ids: ReadonlyArray<string>) =>
  recordStates(deps, "contact", ctx.workspaceId, ids)

/** The live deals linked to any of `contactIds`, found through the deals' own contact_ids. */
export const dealsNaming = (deps: EngineDeps, ctx: RequestContext, contactIds: ReadonlyArray<string>) =>
  liveNaming(deps, "deal", ctx.workspaceId, contactIdsField, contactIds)

const companyIdsOf = (contacts: ReadonlyArray<JsonObject>) => [...new Set(contacts.flatMap(linkedCompanyIds))]

const liveCompaniesIn = (deps: EngineDeps, ctx: RequestContext, ids: ReadonlyArray<string>) =>
  Effect.map(deps.storage.getDocuments("company", ctx.workspaceId, ids), (docs) => docs.filter((doc) => doc.deletedAt === null))

/** The live companies among those the contacts link (one read, none when they link none), in no particular order. */
export const liveCompaniesOf = (
  deps: EngineDeps,
  ctx: RequestContext,
  contacts: ReadonlyArray<JsonObject>
): Effect.Effect<ReadonlyArray<StoredDocument>, StorageUnavailable> => {
  const ids = companyIdsOf(contacts)
  return ids.length === 0 ? Effect.succeed([]) : liveCompaniesIn(deps, ctx, ids)
}

/**
 * `other` and the contacts' live companies, read at once when there are companies to read; when
 * there are none (most contacts), `other` alone, without forking fibers for a read that is not made.
 */
export const withLiveCompaniesOf = <A, E>(
  deps: EngineDeps,
  ctx: RequestContext,
  contacts: ReadonlyArray<JsonObject>,
  other: Effect.Effect<A, E>
): Effect.Effect<readonly [A, ReadonlyArray<StoredDocument>], E | StorageUnavailable> => {
  const ids = companyIdsOf(contacts)
  return ids.length === 0
    ? Effect.map(other, (a) => [a, []] as const)
    : Effect.all([other, liveCompaniesIn(deps, ctx, ids)] as const, { concurrency: 2 })
}

export const idsOf = (docs: ReadonlyArray<StoredDocument>): ReadonlySet<string> => new Set(docs.map((doc) => doc.id))

/**
 * Contacts as the API shows them (a get, a list page, the trash, a write's answer, a webhook
 * payload, a company's expand): visible fields with their companies limited to the live ones, then
 * the derived deal_ids; the deals and the companies read for all of them at once.
 */
export const contactViews = (
  deps: EngineDeps,
  ctx: RequestContext,
  contacts: ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>,
  catalog: FieldCatalog
) =>
  Effect.map(
    withLiveCompaniesOf(
      deps,
      ctx,
      contacts.map((contact) => contact.data),
      dealsNaming(
        deps,
        ctx,
        contacts.map((contact) => contact.id)
      )
    ),
    ([deals, companies]) => {
      const live = idsOf(companies)
      return contacts.map((contact) => contactView(contact.id, visibleFields(contact.data, catalog), deals, live))
    }
  )

export const oneContactView = (deps: EngineDeps, ctx: RequestContext, id: string, data: JsonObject, catalog: FieldCatalog) =>
  Effect.map(contactViews(deps, ctx, [{ id, data }], catalog), ([view]) => view!)
