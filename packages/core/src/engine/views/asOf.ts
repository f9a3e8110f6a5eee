import { Effect, Result } from "effect"
import { type Aggregate, decodeEvents, isStreamOf } from "../../aggregate.js"
import { companyAggregate } from "../../company/index.js"
import { contactAggregate, contactViewWith, linkedCompanyIds } from "../../contact/index.js"
import { companyIdOf, dealAggregate, showingLiveCompany } from "../../deal/index.js"
import { contactIdsOf, showingLiveContacts } from "../../deal/contactLinks.js"
import type { Projected } from "../../decider.js"
import { NotFound, type StorageUnavailable, ValidationError } from "../../errors.js"
import { eventAt, recordAsOf } from "../../history/index.js"
import { normaliseTimestamp } from "../../query/calendar.js"
import type { FieldCatalog } from "../../query/fields.js"
import type { ChangeFeedEvent, ChangeFeedPosition } from "../../storage/changeFeed.js"
import { type DomainEvent, isRedacted, type StoredEvent } from "../../storage/events.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext, Versioned } from "../contract/Engine.js"
import { visibleFields } from "../base/reads.js"
import { pipelineAggregate, pipelineInfoOfView } from "../../pipeline/index.js"
import { dealShown, stageProbabilityIn } from "./dealViews.js"
import { recordedEvents } from "./recordedEvents.js"

/** `as_of`, read as the query language reads timestamps. */
export const parseAsOf = (raw: string): Effect.Effect<string, ValidationError> => {
  const instant = normaliseTimestamp(raw)
  return instant === null
    ? Effect.fail(ValidationError.at("as_of", "must be an ISO 8601 timestamp with a time zone"))
    : Effect.succeed(instant)
}

/** A record's stream as it stood at an instant; null when it did not exist then, or is not this workspace's, or was purged. */
const recordAt = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  ctx: RequestContext,
  aggregate: Aggregate<C, E, S>,
  id: string,
  instant: string
): Effect.Effect<{ readonly record: Projected | null; readonly version: number }, StorageUnavailable> =>
  Effect.map(recordedEvents(deps, aggregate, ctx, id), (stream) =>
    aggregate.project === null ? { record: null, version: 0 } : recordAsOf(stream, aggregate.project, instant)
  )

/** The record at an instant, or 404 when it did not exist then or was in the trash. */
const liveAt = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  ctx: RequestContext,
  aggregate: Aggregate<C, E, S>,
  id: string,
  instant: string
) =>
  Effect.flatMap(recordAt(deps, ctx, aggregate, id, instant), ({ record, version }) =>
    record === null || record.deletedAt !== null
      ? Effect.fail(new NotFound({ resource: aggregate.name, id }))
      : Effect.succeed({ data: record.data, version })
  )

/** Which of these records (of one type) were live at the instant: each folded from its own stream. */
const liveThen = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  ctx: RequestContext,
  aggregate: Aggregate<C, E, S>,
  ids: ReadonlyArray<string>,
  instant: string
) =>
  Effect.map(
    Effect.forEach(ids, (id) => recordAt(deps, ctx, aggregate, id, instant), { concurrency: 8 }),
    (states) => new Set(ids.filter((_, i) => states[i]!.record !== null && states[i]!.record!.deletedAt === null))
  )

const PAGE = 1000

const dealEventTypes = ["created", "updated", "stage_changed", "deleted", "restored", "purged", "contact_unlinked"].map(
  (type) => `deal.${type}`
)

/**
 * Every deal of the workspace as it stood at an instant, by id (deals in the trash then included,
 * with their deletedAt): each folded from its events up to then, read in one walk of the workspace's
 * deal events in the change feed's order, up to its head (so it costs what the workspace's deal
 * history does). Each deal's events are folded in version order, which the walk's order is but for
 * a commit that raced the one before it. Purged deals are left out: their data is erased.
 */
export const dealsAt = (deps: EngineDeps, ctx: RequestContext, instant: string) =>
  Effect.gen(function* () {
    const deals = new Map<string, Projected>()
    const project = dealAggregate.project
    if (project === null) return deals
    const until = yield* deps.storage.workspaceHead(ctx.workspaceId)
    if (until === null) return deals
    const streams = new Map<string, Array<StoredEvent>>()
    const purged = new Set<string>()
    for (let after: ChangeFeedPosition | null = null; ; ) {
      const page: ReadonlyArray<ChangeFeedEvent> = yield* deps.storage.readWorkspaceLog({
        workspaceId: ctx.workspaceId,
        after,
        until,
        types: dealEventTypes,
        limit: PAGE
      })
      for (const stored of page) {
        const id = stored.streamId
        if (!isStreamOf(dealAggregate, id) || purged.has(id)) continue
        if (isRedacted(stored.data) || stored.type.endsWith(".purged")) {
          purged.add(id)
          streams.delete(id)
          continue
        }
        if (eventAt(stored) > instant) continue
        const stream = streams.get(id)
        if (stream === undefined) streams.set(id, [stored])
        else stream.push(stored)
      }
      if (page.length < PAGE) break
      after = page[page.length - 1]!.position
    }
    for (const [id, stream] of streams) {
      const decoded = decodeEvents(
        dealAggregate,
        [...stream].sort((a, b) => a.streamVersion - b.streamVersion)
      )
      if (Result.isFailure(decoded)) return yield* Effect.die(decoded.failure)
      let deal: Projected | null = null
      for (const event of decoded.success) deal = project(deal, event)
      if (deal !== null) deals.set(id, deal)
    }
    return deals
  })

/** The deals that named a contact at an instant (dealsAt's walk). */
const dealIdsAt = (deps: EngineDeps, ctx: RequestContext, contactId: string, instant: string) =>
  Effect.map(dealsAt(deps, ctx, instant), (deals) =>
    [...deals]
      .filter(([, deal]) => deal.deletedAt === null && contactIdsOf(deal.data).includes(contactId))
      .map(([id]) => id)
      .sort()
  )

/**
 * A contact as its GET would have shown it at an instant: its fields then, its companies limited to
 * those live then, and the deals that named it then.
 */
export const contactAsOf = (deps: EngineDeps, ctx: RequestContext, id: string, instant: string, catalog: FieldCatalog) =>
  Effect.gen(function* () {
    const { data, version } = yield* liveAt(deps, ctx, contactAggregate, id, instant)
    const companies = yield* liveThen(deps, ctx, companyAggregate, linkedCompanyIds(data), instant)
    return {
      data: contactViewWith(visibleFields(data, catalog), yield* dealIdsAt(deps, ctx, id, instant), companies),
      version
    } satisfies Versioned
  })

/** A pipeline as it stood at an instant (null when it did not exist then). */
export const pipelineAt = (deps: EngineDeps, ctx: RequestContext, id: string, instant: string) =>
  Effect.map(recordAt(deps, ctx, pipelineAggregate, id, instant), ({ record }) =>
    record === null ? null : pipelineInfoOfView(record.data)
  )

/**
 * A deal as its GET would have shown it at an instant: its fields then, contact_ids and company_id
 * limited to records live then, its weighted_value with its stage's probability then.
 */
export const dealAsOf = (deps: EngineDeps, ctx: RequestContext, id: string, instant: string, catalog: FieldCatalog) =>
  Effect.gen(function* () {
    const { data, version } = yield* liveAt(deps, ctx, dealAggregate, id, instant)
    const contacts = yield* liveThen(deps, ctx, contactAggregate, contactIdsOf(data), instant)
    const companyId = companyIdOf(data)
    const companies = yield* liveThen(deps, ctx, companyAggregate, companyId === null ? [] : [companyId], instant)
    const pipeline = yield* pipelineAt(deps, ctx, String(data["pipeline_id"]), instant)
    const shown = dealShown(showingLiveCompany(showingLiveContacts(data, contacts), companies), catalog, stageProbabilityIn([pipeline]))
    return { data: shown, version } satisfies Versioned
  })
