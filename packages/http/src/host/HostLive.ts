import {
  Engine,
  EngineLive,
  Ids,
  IdsLive,
  WebhookConfig,
  WebhookTransport,
  WebhookTransportUnavailable
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { HttpApiBuilder, type HttpServer, type HttpServerError } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { createServer } from "node:http"
import { Effect, Layer } from "effect"
import * as ApiKeys from "../auth/ApiKeys.js"
import { ApiLive } from "../Http.js"
import * as RateLimiter from "../rateLimit/RateLimiter.js"
import { drainConnections } from "./drainConnections.js"
import type { HostConfig } from "./HostConfig.js"
import { hostMiddleware } from "./hostMiddleware.js"
import * as JsonLogger from "./jsonLogger.js"
import { purgeSchedule } from "./purgeSchedule.js"
import { type StorageChoice, type StorageInUse, storageLayer, type StorageSetupError } from "./storage.js"

/** What HostLive needs besides an engine: keys are resolved (the dev key already made). */
export type ServeOptions = Omit<HostConfig, "storage" | "dataDir" | "apiKeys"> & {
  readonly apiKeys: ReadonlyArray<ApiKeys.ApiKey>
}

/**
 * The HTTP host over any Engine: serves the API on a Node server, purges expired records in the
 * background, and on release drains connections before it lets go of the engine. Embedders with
 * their own storage provide Engine and Ids; `startServer` provides the bundled ones.
 */
export const HostLive = (options: ServeOptions): Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError, Engine | Ids> =>
  Layer.unwrapEffect(Effect.sync(() => {
    const server = createServer()
    const served = HttpApiBuilder.serve().pipe(
      Layer.provide(HttpApiBuilder.middleware(hostMiddleware)),
      Layer.provide(ApiLive),
      Layer.provide([
        ApiKeys.layer(options.apiKeys),
        RateLimiter.layer({ rate: options.rateLimit, burst: options.rateBurst })
      ])
    )
    // Built after the server and released before it: see drainConnections.
    const drain = Layer.scopedDiscard(Effect.addFinalizer(() => drainConnections(server)))
    const purge = Layer.scopedDiscard(purgeSchedule)
    return Layer.mergeAll(drain, purge).pipe(
      Layer.provide(served),
      Layer.provideMerge(NodeHttpServer.layer(() => server, { port: options.port, host: options.host })),
      Layer.provide(JsonLogger.layer(options.log))
    )
  }))

// Until the host's webhook transport lands, webhooks cannot be registered (a clear 400), never faked.
const webhookServices = Layer.merge(WebhookConfig.layer(), Layer.succeed(WebhookTransport, WebhookTransportUnavailable))

/** The engine over in-process memory: nothing survives a restart. */
export const MemoryEngineLive: Layer.Layer<Engine | Ids> = EngineLive.pipe(
  Layer.provideMerge(IdsLive),
  Layer.provide(MemoryStorage.layer),
  Layer.provide(webhookServices)
)

/** The bundled engine over the chosen storage, which says what it is for the start banner. */
export const engineOn = (choice: StorageChoice): Layer.Layer<Engine | Ids | StorageInUse, StorageSetupError> =>
  EngineLive.pipe(
    Layer.provideMerge(IdsLive),
    Layer.provideMerge(storageLayer(choice)),
    Layer.provide(webhookServices)
  )
