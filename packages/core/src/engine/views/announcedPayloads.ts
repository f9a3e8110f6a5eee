import { Effect, Result } from "effect"
import { type AnyAggregate, aggregateOf, decodeEvents } from "../../aggregate.js"
import { contactAggregate } from "../../contact/index.js"
import { dealAggregate } from "../../deal/index.js"
import type { Projected } from "../../decider.js"
import { payloadDataFor } from "../../delivery/index.js"
import type { StorageUnavailable } from "../../errors.js"
import { storedAnnouncement } from "../../feed/feedEvent.js"
import type { JsonObject } from "../../json.js"
import type { DomainEvent, StoredEvent } from "../../storage/events.js"
import { oneContactView } from "./contactViews.js"
import { dealView } from "./dealViews.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { recordedEvents } from "./recordedEvents.js"
import type { Catalogs } from "../base/settings.js"

/** How the records an event may be about are shown in a payload: as the API shows them. */
const viewers: ReadonlyArray<{
  readonly aggregate: AnyAggregate
  readonly view: (
    deps: EngineDeps,
    ctx: RequestContext,
    id: string,
    data: JsonObject,
    catalogs: Catalogs
  ) => Effect.Effect<JsonObject, StorageUnavailable>
}> = [
  { aggregate: contactAggregate, view: (deps, ctx, id, data, catalogs) => oneContactView(deps, ctx, id, data, catalogs.contact) },
  { aggregate: dealAggregate, view: (deps, ctx, _id, data, catalogs) => dealView(deps, ctx, data, catalogs.deal) }
]

/**
 * Each event's announced data (the payload of its deliveries, its data in the change feed), by
 * event id: what was stored with it at commit (storedAnnouncement). An event recorded before
 * payloads were stored with events gets it made as the outbox would have made it: the record as it
 * stood right after the event, shown by the API's view of now (its derived fields, a contact's
 * deal_ids say, are today's). That record is its document
 * when the event is the stream's last (most events of a backfill: records created and left alone),
 * read in one query per aggregate; otherwise the stream is folded up to the event. Events of a
 * record erased since (a purge) have none: its data is gone for good.
 */
export const announcedPayloads = (deps: EngineDeps, ctx: RequestContext, events: ReadonlyArray<StoredEvent>, catalogs: Catalogs) =>
  Effect.gen(function* () {
    const payloads = new Map<string, JsonObject>()
    const byStream = new Map<string, Array<StoredEvent>>()
    for (const event of events) {
      const stored = storedAnnouncement(event, deps.recordTypes)
      if (stored !== null) payloads.set(event.metadata.eventId, stored)
      else byStream.set(event.streamId, [...(byStream.get(event.streamId) ?? []), event])
    }
    if (byStream.size === 0) return payloads
    yield* Effect.forEach(
      viewers,
      ({ aggregate, view }) =>
        Effect.gen(function* () {
          const project = aggregate.project
          const streams = [...byStream].filter(([streamId]) => aggregateOf([aggregate], streamId) !== undefined)
          if (project === null || streams.length === 0) return
          const collection = aggregate.collections[0]!
          const documents = new Map(
            (yield* deps.storage.getDocuments(
              collection,
              ctx.workspaceId,
              streams.map(([streamId]) => streamId)
            )).map((doc) => [doc.id, doc])
          )
          const add = (event: StoredEvent, decoded: DomainEvent, record: JsonObject) =>
            Effect.map(view(deps, ctx, event.streamId, record, catalogs), (shown) => {
              const data = payloadDataFor(decoded, shown, deps.recordTypes)
              if (data !== null) payloads.set(event.metadata.eventId, data)
            })
          yield* Effect.forEach(
            streams,
            ([streamId, wanted]) =>
              Effect.gen(function* () {
                const doc = documents.get(streamId)
                const only = wanted.length === 1 ? wanted[0]! : undefined
                // Candidates are never redacted: the event is its record's last, so the document is the record after it.
                if (doc !== undefined && only !== undefined && doc.version === only.streamVersion) {
                  const decoded = decodeEvents(aggregate, [only])
                  if (Result.isFailure(decoded)) return yield* Effect.die(decoded.failure)
                  return yield* add(only, decoded.success[0]!, doc.data)
                }
                // Empty for a record purged since: its events get no payload.
                const stream = yield* recordedEvents(deps, aggregate, ctx, streamId)
                let record: Projected | null = null
                let folded = 0
                for (const event of wanted) {
                  for (; folded < event.streamVersion && folded < stream.length; folded++) record = project(record, stream[folded]!.event)
                  const decoded = stream[event.streamVersion - 1]
                  if (record !== null && decoded !== undefined) yield* add(event, decoded.event, record.data)
                }
              }),
            { concurrency: 8, discard: true }
          )
        }),
      { discard: true }
    )
    return payloads
  })
