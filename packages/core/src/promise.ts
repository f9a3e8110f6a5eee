import { Effect, Layer, ManagedRuntime } from "effect"
import { dealRulesLayer, Engine, type EngineService } from "./engine/contract/Engine.js"
import type { DealRule } from "./deal/rules.js"
import { EngineLive } from "./engine/EngineLive.js"
import type { ConsumeOptions, Consumer } from "./engine/contract/Consumer.js"
import type { JsonObject } from "./json.js"
import { IdsLive } from "./engine/contract/Ids.js"
import type { DeliveryQueue } from "./storage/DeliveryQueue.js"
import type { Storage } from "./storage/Storage.js"
import { type InlineProjection, InlineProjections } from "./storage/inlineProjection.js"
import { DeliveryWorkerLive, type DeliveryWorkerOptions } from "./engine/workers/deliveryWorker.js"
import { WebhookConfig, type WebhookConfigService } from "./engine/contract/WebhookConfig.js"
import { WebhookTransport, WebhookTransportUnavailable } from "./engine/contract/WebhookTransport.js"

/** An Effect-returning function turned into one returning a Promise, recursively through objects. */
type Promised<F> = F extends (...args: infer A) => Effect.Effect<infer R, infer _E, never>
  ? (...args: A) => Promise<R>
  : F extends Effect.Effect<infer R, infer _E, never>
    ? () => Promise<R>
    : F extends object
      ? { readonly [K in keyof F]: Promised<F[K]> }
      : never

/**
 * The engine for callers who do not use Effect: every operation returns a Promise, and a failure
 * rejects with the tagged domain error itself (`error._tag` is "NotFound", "ValidationError", …).
 */
export type PromiseEngine = Promised<Omit<EngineService, "consume">> & {
  /** Releases the storage (pools, embedded servers). */
  readonly dispose: () => Promise<void>
  /** `engine.consume` with a Promise handler (see ConsumeOptions); resolves once the consumer runs. */
  readonly consume: (options: PromiseConsumeOptions) => Promise<PromiseConsumer>
}

/** What a Promise handler is told beside each event: ConsumerDelivery, its transaction's statements as Promises. */
export interface PromiseConsumerDelivery {
  readonly attempt: number
  /** Runs one statement in the transaction that stores the checkpoint (PostgreSQL); null on memory storage. */
  readonly transaction: {
    readonly execute: (sql: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<Record<string, unknown>>>
  } | null
}

/** ConsumeOptions with a handler that returns a Promise; a rejection is retried as a failed Effect is. */
export interface PromiseConsumeOptions extends Omit<ConsumeOptions, "handler"> {
  readonly handler: (event: JsonObject, delivery: PromiseConsumerDelivery) => Promise<void>
}

/** A running consumer, as Promises. */
export interface PromiseConsumer {
  /** As Consumer's: a page not yet committed is rolled back (PostgreSQL), the lease released. */
  readonly stop: () => Promise<void>
  /** Whether this process holds the lease now. */
  readonly active: () => Promise<boolean>
}

type Run = (effect: Effect.Effect<unknown, unknown>) => Promise<unknown>

const promised = (value: unknown, run: Run): unknown => {
  if (Effect.isEffect(value)) return () => run(value as Effect.Effect<unknown, unknown>)
  if (typeof value === "function") {
    return (...args: Array<unknown>) => run((value as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args))
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, promised(inner, run)]))
  }
  return value
}

export interface PromiseEngineOptions {
  /** How webhooks are sent (e.g. NodeWebhookTransport.layer from @dealstream/http); without it they cannot be registered. */
  readonly transport?: Layer.Layer<WebhookTransport>
  readonly webhooks?: Partial<WebhookConfigService>
  /** Run a delivery worker inside this engine. */
  readonly worker?: DeliveryWorkerOptions
  /** Deal rules of your own, checked inside the deal's decider (see DealRule). */
  readonly dealRules?: ReadonlyArray<DealRule>
  /**
   * Inline projections (see inlineProjection): run inside every commit of the events they handle,
   * stored or undone with it. A failing one rejects the command with ProjectionFailed.
   */
  readonly inlineProjections?: ReadonlyArray<InlineProjection>
}

/** `const crm = await createPromiseEngine(MemoryStorage.layer)`, then `await crm.contacts.create(ctx, body)`. */
export const createPromiseEngine = async <E>(
  storage: Layer.Layer<Storage | DeliveryQueue, E>,
  options: PromiseEngineOptions = {}
): Promise<PromiseEngine> => {
  const services = Layer.mergeAll(
    storage,
    IdsLive,
    WebhookConfig.layer(options.webhooks),
    options.transport ?? Layer.succeed(WebhookTransport, WebhookTransportUnavailable),
    options.dealRules === undefined ? Layer.empty : dealRulesLayer(options.dealRules),
    options.inlineProjections === undefined ? Layer.empty : Layer.succeed(InlineProjections, options.inlineProjections)
  )
  const worker = options.worker === undefined ? Layer.empty : DeliveryWorkerLive(options.worker)
  const runtime = ManagedRuntime.make(Layer.merge(EngineLive, worker).pipe(Layer.provide(services)))
  const engine = await runtime.runPromise(Engine)
  // runPromise would reject with a FiberFailure wrapper; callers should get the domain error itself.
  const run: Run = (effect) =>
    runtime
      .runPromise(Effect.result(effect))
      .then((result) => (result._tag === "Success" ? result.success : Promise.reject(result.failure)))
  const consume = (options: PromiseConsumeOptions) =>
    run(
      engine.consume({
        ...options,
        handler: (event, { attempt, transaction }) =>
          // The handler's statements run in this fiber's transaction, so they are run with its context.
          Effect.flatMap(Effect.context<never>(), (context) =>
            Effect.tryPromise(() =>
              options.handler(event, {
                attempt,
                transaction:
                  transaction === null
                    ? null
                    : { execute: (sql, params) => Effect.runPromiseWith(context)(transaction.execute(sql, params)) }
              })
            )
          )
      })
    ) as Promise<Consumer>
  return {
    ...(promised(engine, run) as Promised<Omit<EngineService, "consume">>),
    consume: (options) => consume(options).then((consumer) => promised(consumer, run) as PromiseConsumer),
    dispose: () => runtime.dispose()
  }
}
