import { Effect } from "effect"
import { activityAggregate, type ActivityCommand } from "../../activity/index.js"
import { isStreamOf } from "../../aggregate.js"
import { contactAggregate, type ContactCommand, linkedCompanyIds } from "../../contact/index.js"
import { dealAggregate } from "../../deal/index.js"
import { NotFound } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { StoredDocument } from "../../storage/documents.js"
import { type EngineDeps, nowIso } from "../base/deps.js"
import { queryAll, visibleFields } from "../base/reads.js"
import { catalogs } from "../base/settings.js"
import type { Addition } from "../commands/commandOptions.js"
import { handleCommand } from "../commands/handleCommand.js"
import { redactStoredAnswers } from "../commands/idempotency.js"
import type { ReadError, RequestContext, WriteError } from "../contract/Engine.js"
import { wholeHistory } from "../views/history.js"
import { purgeRecord } from "../workers/purge.js"
import { deliveryIdsOf, purgedDeliveries } from "../workers/purgedDeliveries.js"
import type { RecordWrites } from "./recordService.js"
import type { TrashShown } from "./trash.js"

/**
 * A person's data on request (API.md, "Privacy: export and erasure"): everything held about a
 * contact in one document, and its erasure now, whatever the trash window. The erasure is the
 * purge's (workers/purge.ts, purgeRecord), with its own tombstone, `contact.erased`, announced to
 * webhooks and the feed, and what a purge leaves alone: the contact's links in deals and
 * activities, and the answers stored under an Idempotency-Key that show it.
 */

const contactIdsField = { name: "contact_ids", type: "id_array" } as const

/** Links are kept per record, in its own stream, so a link's removal is a commit per record; a few at a time. */
const UNLINK_CONCURRENCY = 4

/** The documents of `collection`, live and in the trash, whose contact_ids name the contact, in id order. */
const naming = (deps: EngineDeps, ctx: RequestContext, collection: "deal" | "activity", contactId: string) =>
  Effect.map(
    Effect.all(
      (["live", "deleted"] as const).map((scope) =>
        queryAll(
          deps,
          collection,
          ctx.workspaceId,
          { _tag: "HasElement", field: contactIdsField, value: contactId },
          { field: { name: "id", type: "id" }, direction: "asc" },
          scope
        )
      )
    ),
    ([live, trashed]): ReadonlyArray<StoredDocument> => [...live!, ...trashed!].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  )

const byCreation = (a: StoredDocument, b: StoredDocument): number => {
  const at = (doc: StoredDocument) => String(doc.data["created_at"] ?? "")
  return at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** What taking an erased contact out of the records that link it came to. */
interface Unlinked {
  readonly deals: number
  readonly activities: number
  /** Activities that named the person alone, purged with them (activity/decider.ts). */
  readonly erasedActivities: number
}

const nothing: Addition = { streams: [], documents: [] }

export const makePrivacy = (deps: EngineDeps, contacts: { readonly writes: RecordWrites; readonly shown: TrashShown }) => {
  /**
   * The contact taken out of every deal and activity that links it, live or in the trash: one
   * commit per record (its `contact_unlinked` event names the contact by id only), or, for an
   * activity that named the person alone, its purge now with its deliveries' payloads.
   */
  const unlinkEverywhere = (ctx: RequestContext, contactId: string) =>
    Effect.gen(function* () {
      const deals = yield* naming(deps, ctx, "deal", contactId)
      const dealsDone = yield* Effect.forEach(
        deals,
        (deal) =>
          handleCommand(deps, dealAggregate, {
            ctx,
            streamId: deal.id,
            command: ({ at }) => Effect.succeed({ type: "UnlinkContact" as const, id: deal.id, at, contactId })
          }).pipe(
            Effect.map((handled) => handled.fresh.length > 0),
            // Purged since it was read: nothing of it links anyone.
            Effect.catchTag("NotFound", () => Effect.succeed(false))
          ),
        { concurrency: UNLINK_CONCURRENCY }
      )
      const activities = yield* naming(deps, ctx, "activity", contactId)
      const activitiesDone = yield* Effect.forEach(
        activities,
        (activity) =>
          handleCommand(deps, activityAggregate, {
            ctx,
            streamId: activity.id,
            command: ({ at }): Effect.Effect<ActivityCommand> =>
              Effect.succeed({ type: "UnlinkActivityContact", id: activity.id, at, contactId }),
            also: (context) =>
              context.fresh.some(({ event }) => event.type === "activity.purged")
                ? purgedDeliveries(deps, ctx)(context)
                : Effect.succeed(nothing)
          }).pipe(
            Effect.map((handled) => handled.fresh[0]?.type ?? null),
            Effect.catchTag("NotFound", () => Effect.succeed(null))
          ),
        { concurrency: UNLINK_CONCURRENCY }
      )
      return {
        deals: dealsDone.filter((done) => done).length,
        activities: activitiesDone.filter((type) => type === "activity.contact_unlinked").length,
        erasedActivities: activitiesDone.filter((type) => type === "activity.purged").length
      } satisfies Unlinked
    })

  /**
   * Everything held about the person, from one state of the storage: the contact as its GET (or
   * the trash) shows it, whether it is in the trash, its whole history with every value, the
   * activities that link it (live and in the trash, their links as stored), the ids of the deals
   * that link it (likewise) and of the companies it links, and the ids of the webhook deliveries
   * whose payloads carried it. NotFound for a contact erased, purged or never written.
   */
  const exportPerson = (ctx: RequestContext, id: string): Effect.Effect<JsonObject, ReadError> =>
    deps.storage.snapshot(ctx.workspaceId, () =>
      Effect.gen(function* () {
        const doc = isStreamOf(contactAggregate, id) ? yield* deps.storage.getDocument("contact", ctx.workspaceId, id) : null
        if (doc === null) return yield* new NotFound({ resource: "contact", id })
        const known = yield* catalogs(deps, ctx)
        const [contact] = yield* contacts.shown.views(ctx, [doc], known.contact)
        const [history, activities, deals, deliveryIds] = yield* Effect.all(
          [
            wholeHistory(deps, ctx, contactAggregate, id, known.contact),
            naming(deps, ctx, "activity", id),
            naming(deps, ctx, "deal", id),
            deliveryIdsOf(deps, ctx, id)
          ],
          { concurrency: 4 }
        )
        const exportedAt = yield* nowIso
        return {
          contact: contact!,
          deleted_at: doc.deletedAt,
          history,
          activities: [...activities].sort(byCreation).map((activity) => visibleFields(activity.data, known.activity)),
          deal_ids: deals.map((deal) => deal.id),
          company_ids: [...linkedCompanyIds(doc.data)],
          delivery_ids: deliveryIds,
          exported_at: exportedAt
        } satisfies JsonObject
      })
    )

  /**
   * The purge of the trash window, now, for a live contact or one in the trash: its links taken out
   * of deals and activities and the stored answers that show it redacted, then purgeRecord with
   * `contact.erased` for tombstone (its documents removed, its events' data and the payloads of its
   * deliveries redacted, the tombstone announced), then the links made while it ran. Each record
   * is its own commit, deliveries a page per commit, so its time grows with what it erases and no
   * transaction does; a request that fails before the tombstone leaves the contact to erase again.
   * Answers the counts of what it redacted and unlinked. NotFound for a contact already erased or
   * purged (or never written).
   */
  const erase = (ctx: RequestContext, id: string): Effect.Effect<JsonObject, WriteError> =>
    Effect.gen(function* () {
      const doc = isStreamOf(contactAggregate, id) ? yield* deps.storage.getDocument("contact", ctx.workspaceId, id) : null
      if (doc === null) return yield* new NotFound({ resource: "contact", id })
      // Under an Idempotency-Key only the contact's own commit records it (what the request applied).
      const { idempotency: _key, ...others } = ctx
      // Before the tombstone, so that a request that fails half-way leaves the contact to erase again.
      const before = yield* unlinkEverywhere(others, id)
      const answers = yield* redactStoredAnswers(deps, others, "contact", id)
      let events = 0
      let companies = 0
      const on = contacts.writes.commandOn(ctx, id)
      const { deliveries, handled } = yield* purgeRecord(
        deps,
        contactAggregate,
        ctx,
        id,
        (at): ContactCommand => ({ type: "EraseContact", id, at }),
        {
          ...(on.prepare === undefined ? {} : { prepare: on.prepare }),
          also: (context) => {
            events = (context.fresh[0]?.version ?? 1) - 1
            companies = linkedCompanyIds(context.before?.data ?? {}).length
            return on.also === undefined ? Effect.succeed(nothing) : on.also(context)
          }
        }
      )
      // A deal or an activity may have been linked to the contact while it was live, in between.
      const after = yield* unlinkEverywhere(others, id)
      const erasedAt = handled.fresh[0]?.data.at ?? (yield* nowIso)
      return {
        id,
        erased_at: erasedAt,
        redacted: {
          events,
          // Every event of a contact is an entry of the change feed.
          feed_entries: events,
          deliveries,
          stored_answers: answers
        },
        unlinked: {
          deals: before.deals + after.deals,
          companies,
          activities: before.activities + after.activities
        },
        erased_activities: before.erasedActivities + after.erasedActivities
      } satisfies JsonObject
    })

  return { exportPerson, erase }
}
