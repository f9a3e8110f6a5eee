import { Effect } from "effect"
import type { Aggregate } from "../../aggregate.js"
import { deliveryAggregate, payloadDataFor, payloadShowsRecord, type ScheduleDelivery } from "../../delivery/index.js"
import type { StorageUnavailable } from "../../errors.js"
import { isJsonObject, type JsonObject } from "../../json.js"
import type { DocumentWrite } from "../../storage/documents.js"
import type { DomainEvent } from "../../storage/events.js"
import type { StreamAppend } from "../../storage/Storage.js"
import { isWebhookEventType, subscribesTo } from "../../webhook/index.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import type { Addition, AlsoContext } from "./commandOptions.js"
import { decide, newStream } from "./decide.js"
import type { Catalogs } from "../base/settings.js"

/** A delivery's first event and document, ready to go into a commit (a new stream: nothing can refuse it). */
export const scheduleDelivery = (deps: EngineDeps, ctx: RequestContext, command: ScheduleDelivery) =>
  Effect.map(decide(deps, deliveryAggregate, newStream(deliveryAggregate, ctx, command.id), command).pipe(Effect.orDie), (decided) => ({
    stream: decided.append,
    document: decided.documents[0]!
  }))

/**
 * The transactional outbox: the commit that records a record's events also schedules one delivery per
 * active webhook of the workspace subscribed to each of them, so no event is ever lost between the
 * write and its announcement. Every announced event carries the record as the API shows it right
 * after the event, stored with the event whether or not a webhook wants it: the change feed hands
 * out that same data, byte for byte what its deliveries send, and nothing read later could make it
 * again (a contact's deal_ids, the catalog of the time).
 */
export const outbox =
  <C, E extends DomainEvent, S>(
    deps: EngineDeps,
    ctx: RequestContext,
    aggregate: Aggregate<C, E, S>,
    /** The record as the API shows it right after `event`, by the workspace's catalogs. */
    view: (data: JsonObject, known: Catalogs, event: E) => Effect.Effect<JsonObject, StorageUnavailable>
  ) =>
  (context: AlsoContext<E>) =>
    Effect.gen(function* () {
      const project = aggregate.project
      if (project === null || !context.fresh.some(({ event }) => isWebhookEventType(event.type, deps.recordTypes))) {
        return { streams: [], documents: [] } satisfies Addition
      }
      const webhooks = yield* context.settings.activeWebhooks
      const streams: Array<StreamAppend> = []
      const documents: Array<DocumentWrite> = []
      const payloads: Array<JsonObject | null> = []
      let record = context.before
      for (const { event, metadata, version } of context.fresh) {
        record = project(record, event)
        if (!isWebhookEventType(event.type, deps.recordTypes)) {
          payloads.push(null)
          continue
        }
        const shown =
          payloadShowsRecord(event.type) && record !== null
            ? yield* view(record.data, yield* context.settings.catalogs, event)
            : { id: context.streamId }
        const payloadData = payloadDataFor(event, shown, deps.recordTypes)
        payloads.push(payloadData)
        if (payloadData === null) continue
        for (const webhook of webhooks.filter((webhook) => subscribesTo(webhook.data, event.type))) {
          const scheduled = yield* scheduleDelivery(deps, ctx, {
            type: "ScheduleDelivery",
            id: yield* deps.ids.make(deliveryAggregate.prefix),
            at: context.at,
            webhookId: webhook.id,
            eventId: metadata.eventId,
            eventType: event.type,
            eventStreamId: context.streamId,
            eventVersion: version,
            eventCreatedAt: context.at,
            payloadData,
            replayOf: null
          })
          streams.push(scheduled.stream)
          documents.push(scheduled.document)
        }
      }
      // Wake the workers of every host; if the signal is lost, their polling finds the work anyway.
      return {
        streams,
        documents,
        payloads,
        signals: streams.length === 0 ? [] : [{ _tag: "Scheduled" }]
      } satisfies Addition
    })

/**
 * The record as the command's last announced event showed it (`data[key]` of its payload), which
 * is what the write answers: the view was made before the commit for the payload, so the answer
 * costs no read of its own. null when no event of the command showed it.
 */
export const announcedRecord = (payloads: ReadonlyArray<JsonObject | null>, key: string): JsonObject | null => {
  const shown = payloads.at(-1)?.[key]
  return shown !== undefined && isJsonObject(shown) ? shown : null
}
