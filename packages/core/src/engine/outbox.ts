import { Effect, Result } from "effect"
import type { Projected } from "../decider.js"
import { deliveryDecider, payloadDataFor, projectDelivery } from "../delivery/index.js"
import type { StorageUnavailable } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { DocumentWrite } from "../storage/documents.js"
import type { DomainEvent } from "../storage/events.js"
import type { StreamAppend } from "../storage/Storage.js"
import { isWebhookEventType, subscribesTo } from "../webhook/index.js"
import { type EngineDeps, withMetadata } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { type Addition, type AlsoContext, documentWrite, foldProjection } from "./execute.js"
import { queryAll } from "./reads.js"

const activeWebhooks = (deps: EngineDeps, workspaceId: string) =>
  queryAll(deps, "webhook", workspaceId, {
    _tag: "Compare",
    field: { name: "status", type: "enum" },
    op: "eq",
    value: "active"
  })

/** A delivery's first event and document, ready to go into a commit. */
export const scheduleDelivery = (
  deps: EngineDeps,
  ctx: RequestContext,
  command: Parameters<typeof deliveryDecider.decide>[0] & { readonly type: "ScheduleDelivery" }
) =>
  Effect.gen(function*() {
    const decided = deliveryDecider.decide(command, deliveryDecider.initialState)
    if (Result.isFailure(decided)) return yield* Effect.die(decided.failure)
    const events = yield* withMetadata(deps, ctx, decided.success)
    const stream: StreamAppend = { streamId: command.id, expectedVersion: 0, events }
    const document: DocumentWrite = documentWrite(
      "delivery",
      ctx.workspaceId,
      command.id,
      events.length,
      foldProjection(projectDelivery, decided.success)
    )
    return { stream, document }
  })

/**
 * The transactional outbox: the commit that records a record's events also schedules one delivery per
 * active webhook of the workspace subscribed to each of them, so no event is ever lost between the
 * write and its announcement. The payload carries the record as the API shows it right after the event.
 */
export const outboxFor = <E extends DomainEvent>(
  deps: EngineDeps,
  ctx: RequestContext,
  project: (doc: Projected | null, event: E) => Projected | null,
  view: (data: JsonObject) => Effect.Effect<JsonObject, StorageUnavailable>
) =>
(context: AlsoContext<E>) =>
  Effect.gen(function*() {
    const announced = context.fresh.filter(({ event }) => isWebhookEventType(event.type))
    if (announced.length === 0) return { streams: [], documents: [] } satisfies Addition
    const webhooks = yield* activeWebhooks(deps, ctx.workspaceId)
    if (webhooks.length === 0) return { streams: [], documents: [] } satisfies Addition

    const streams: Array<StreamAppend> = []
    const documents: Array<DocumentWrite> = []
    let record = foldProjection(project, context.history)
    for (const { event, metadata, version } of context.fresh) {
      record = project(record, event)
      const subscribers = webhooks.filter((webhook) => subscribesTo(webhook.data, event.type))
      if (subscribers.length === 0) continue
      const payloadData = payloadDataFor(event, record === null ? {} : yield* view(record.data))
      if (payloadData === null) continue
      for (const webhook of subscribers) {
        const scheduled = yield* scheduleDelivery(deps, ctx, {
          type: "ScheduleDelivery",
          id: yield* deps.ids.make("dlv"),
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
    return { streams, documents } satisfies Addition
  })
