import { Clock, Effect } from "effect"
import type { DomainEvent, NewEvent } from "../storage/events.js"
import type { RequestContext } from "./Engine.js"
import { DeliveryQueue, type DeliveryQueueService } from "../storage/DeliveryQueue.js"
import { Storage, type StorageService } from "../storage/Storage.js"
import { Ids, type IdsService } from "./Ids.js"
import { WebhookConfig, type WebhookConfigService } from "./WebhookConfig.js"
import { WebhookTransport, type WebhookTransportService } from "./WebhookTransport.js"

/** The services every engine module works with, captured once when the engine is made. */
export interface EngineDeps {
  readonly storage: StorageService
  readonly ids: IdsService
  readonly queue: DeliveryQueueService
  readonly webhooks: {
    readonly config: WebhookConfigService
    readonly transport: WebhookTransportService
  }
}

export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** Gathers the engine's services once, so modules receive plain objects. */
export const engineDeps = Effect.gen(function*() {
  return {
    storage: yield* Storage,
    ids: yield* Ids,
    queue: yield* DeliveryQueue,
    webhooks: { config: yield* WebhookConfig, transport: yield* WebhookTransport }
  } satisfies EngineDeps
})

/** Decided events made ready to append: each gets its public `evt_` id and who asked for it. */
export const withMetadata = (
  deps: EngineDeps,
  ctx: RequestContext,
  events: ReadonlyArray<DomainEvent>
): Effect.Effect<Array<NewEvent>> =>
  Effect.forEach(events, (event) =>
    Effect.map(deps.ids.make("evt"), (eventId): NewEvent => ({
      type: event.type,
      data: event.data,
      metadata: { workspaceId: ctx.workspaceId, eventId, requestId: ctx.requestId, actor: ctx.actor }
    })))
