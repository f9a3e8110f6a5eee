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

/** A fresh engine on a fresh memory storage; Storage is exposed too so tests can read the log. */
export const memoryEngineLayer = EngineLive.pipe(
  Layer.provideMerge(MemoryStorage.layer),
  Layer.provide(IdsLive),
  // These suites do not send webhooks; the webhook suites provide a real transport.
  Layer.provide(WebhookConfig.layer()),
  Layer.provide(Layer.succeed(WebhookTransport, WebhookTransportUnavailable))
)

export const ctxOf = (workspaceId: string): RequestContext => ({ workspaceId, requestId: null, actor: "test" })

/** Runs a test body against a new engine and storage of its own. */
export const withEngine = <A, E>(
  body: (engine: EngineService, storage: typeof Storage.Service) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    return yield* body(yield* Engine, yield* Storage)
  }).pipe(Effect.provide(memoryEngineLayer))
