import {
  Engine,
  EngineLive,
  type EngineService,
  IdsLive,
  type RequestContext,
  Storage,
  WebhookConfig,
  WebhookTransport,
  WebhookTransportUnavailable
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Effect, Layer } from "effect"

/** The webhook services for suites that send no webhooks: registering one is refused, never faked. */
export const noWebhookSending = Layer.merge(
  WebhookConfig.layer(),
  Layer.succeed(WebhookTransport, WebhookTransportUnavailable)
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
export const withEngine = <A, E>(
  body: (engine: EngineService, storage: typeof Storage.Service) => Effect.Effect<A, E, Engine | Storage>
) =>
  Effect.gen(function*() {
    return yield* body(yield* Engine, yield* Storage)
  }).pipe(Effect.provide(memoryEngineLayer, { local: true }))
