import {
  DeliveryQueue,
  type DeliveryQueueService,
  type Engine,
  EngineLive,
  IdsLive,
  type RequestContext,
  Storage,
  WebhookConfig
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Context, Effect, Layer } from "effect"
import * as NodeWebhookTransport from "../../packages/http/src/webhooks/NodeWebhookTransport.js"
import { eventually } from "./receiver.js"

/**
 * An engine in process on memory storage, sending webhooks over Node's HTTP, whose delivery queue
 * `adapt` may change: a worker's world with one part of it altered.
 */
export const memoryWorkerLayer = (
  adapt: (queue: DeliveryQueueService) => DeliveryQueueService,
  config: Parameters<typeof WebhookConfig.layer>[0] = {}
) =>
  EngineLive.pipe(
    Layer.provideMerge(
      Layer.effectContext(
        Effect.map(MemoryStorage.makeWithQueue, ({ queue, storage }) =>
          Context.make(Storage, storage).pipe(Context.add(DeliveryQueue, adapt(queue)))
        )
      )
    ),
    Layer.provideMerge(IdsLive),
    Layer.provideMerge(WebhookConfig.layer({ allowInsecure: true, ...config })),
    Layer.provideMerge(NodeWebhookTransport.layer)
  )

/** Once the webhook's newest delivery is recorded as succeeded. */
export const deliverySucceeded = (engine: Engine["Service"], ctx: RequestContext, webhookId: string) =>
  Effect.promise(() =>
    eventually(async () => {
      const [listed] = (await Effect.runPromise(engine.webhooks.deliveries(ctx, webhookId, {}))).data
      return listed?.["status"] === "succeeded" ? true : undefined
    }, "the delivery recorded")
  )
