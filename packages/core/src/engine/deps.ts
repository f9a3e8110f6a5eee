import { Clock, Effect } from "effect"
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
