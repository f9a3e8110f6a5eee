import {
  type DealRule,
  dealRulesLayer,
  DeliveryQueue,
  type DeliveryQueueService,
  Engine,
  EngineLive,
  type EngineService,
  IdsLive,
  type RequestContext,
  Storage,
  type StorageService,
  WebhookConfig,
  WebhookTransport,
  WebhookTransportUnavailable
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Context, Effect, Layer, Scope } from "effect"

/** The webhook services for suites that send no webhooks: registering one is refused, never faked. */
export const noWebhookSending = Layer.merge(WebhookConfig.layer(), Layer.succeed(WebhookTransport, WebhookTransportUnavailable))

/**
 * For suites that register webhooks but never send: targets are accepted without a lookup, and a
 * send fails as with no transport at all (no worker runs in them).
 */
export const acceptingTargets = Layer.merge(
  WebhookConfig.layer({ allowInsecure: true }),
  Layer.succeed(WebhookTransport, { ...WebhookTransportUnavailable, checkTarget: () => Effect.void })
)

/**
 * An engine on a memory storage; Storage is exposed too so tests can read the log. Each test's run
 * builds its own, but Effect 4 shares it between a provide and the provides nested inside it: give
 * `{ local: true }` (or use withEngine) where a second, independent one is meant.
 */
export const memoryEngineLayer = EngineLive.pipe(
  Layer.provideMerge(MemoryStorage.layer),
  Layer.provide(IdsLive),
  // These suites do not send webhooks; the webhook suites provide a real transport.
  Layer.provide(noWebhookSending)
)

export const ctxOf = (workspaceId: string): RequestContext => ({ workspaceId, requestId: null, actor: "test" })

/**
 * Runs a test body against a new engine and storage of its own. `local`: Effect 4 memoizes layers
 * across provides, so a call inside another's body would otherwise get the outer engine.
 */
export const withEngine = <A, E>(body: (engine: EngineService, storage: typeof Storage.Service) => Effect.Effect<A, E, Engine | Storage>) =>
  Effect.gen(function* () {
    return yield* body(yield* Engine, yield* Storage)
  }).pipe(Effect.provide(memoryEngineLayer, { local: true }))

/** The storage and delivery queue of a built storage layer, as engineOver takes them. */
export const servicesOf = (context: Context.Context<Storage | DeliveryQueue>) => ({
  storage: Context.get(context, Storage),
  queue: Context.get(context, DeliveryQueue)
})

/**
 * An engine of its own over storage the test already holds: two of them on one storage act as two
 * hosts on one database. Built with a memo map of its own, so Effect 4 never hands back an engine
 * built before; it lives as long as the caller's scope. Without `webhooks`, registering one is refused.
 */
export const engineOver = (
  services: { readonly storage: StorageService; readonly queue: DeliveryQueueService },
  options: {
    readonly webhooks?: Layer.Layer<WebhookConfig | WebhookTransport>
    readonly rules?: ReadonlyArray<DealRule>
  } = {}
): Effect.Effect<EngineService, never, Scope.Scope> =>
  Effect.flatMap(Scope.Scope, (scope) =>
    Layer.buildWithMemoMap(
      EngineLive.pipe(
        Layer.provide(dealRulesLayer(options.rules ?? [])),
        Layer.provide(Layer.succeed(Storage, services.storage)),
        Layer.provide(Layer.succeed(DeliveryQueue, services.queue)),
        Layer.provide(IdsLive),
        Layer.provide(options.webhooks ?? noWebhookSending)
      ),
      Layer.makeMemoMapUnsafe(),
      scope
    )
  ).pipe(Effect.map((context) => Context.get(context, Engine)))
