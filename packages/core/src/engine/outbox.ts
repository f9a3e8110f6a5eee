import { Effect } from "effect"
import type { Aggregate } from "../aggregate.js"
import { deliveryAggregate, type ScheduleDelivery, payloadDataFor } from "../delivery/index.js"
import type { StorageUnavailable } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { DocumentWrite } from "../storage/documents.js"
import type { DomainEvent } from "../storage/events.js"
import type { StreamAppend } from "../storage/Storage.js"
import { isWebhookEventType, subscribesTo } from "../webhook/index.js"
import type { EngineDeps } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { type Addition, type AlsoContext, decide, newStream } from "./handleCommand.js"
import type { Catalogs } from "./settings.js"

/** A delivery's first event and document, ready to go into a commit (a new stream: nothing can refuse it). */
export const scheduleDelivery = (deps: EngineDeps, ctx: RequestContext, command: ScheduleDelivery) =>
  Effect.map(
    decide(deps, deliveryAggregate, newStream(deliveryAggregate, ctx, command.id), command).pipe(Effect.orDie),
    (decided) => ({ stream: decided.append, document: decided.documents[0]! })
  )

/**
 * The transactional outbox: the commit that records a record's events also schedules one delivery per
 * active webhook of the workspace subscribed to each of them, so no event is ever lost between the
 * write and its announcement. The payload carries the record as the API shows it right after the event.
 */
export const outbox = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  ctx: RequestContext,
  aggregate: Aggregate<C, E, S>,
  /** The record as the API shows it, by the workspace's catalogs. */
  view: (data: JsonObject, known: Catalogs) => Effect.Effect<JsonObject, StorageUnavailable>
) =>
(context: AlsoContext<E>) =>
  Effect.gen(function*() {
    const project = aggregate.project
    const announced = context.fresh.filter(({ event }) => isWebhookEventType(event.type))
    if (announced.length === 0 || project === null) return { streams: [], documents: [] } satisfies Addition
    const webhooks = yield* context.settings.activeWebhooks
    if (webhooks.length === 0) return { streams: [], documents: [] } satisfies Addition

    const streams: Array<StreamAppend> = []
    const documents: Array<DocumentWrite> = []
    let record = context.before
    for (const { event, metadata, version } of context.fresh) {
      record = project(record, event)
      const subscribers = webhooks.filter((webhook) => subscribesTo(webhook.data, event.type))
      if (subscribers.length === 0) continue
      const payloadData = payloadDataFor(event, record === null ? {} : yield* view(record.data, yield* context.settings.catalogs))
      if (payloadData === null) continue
      for (const webhook of subscribers) {
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
    return { streams, documents, signals: streams.length === 0 ? [] : [{ _tag: "Scheduled" }] } satisfies Addition
  })
