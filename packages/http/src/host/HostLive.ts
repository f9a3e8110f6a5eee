import {
  DeliveryWorkerLive,
  Engine,
  RecordTypes,
  EngineLive,
  type EngineRequirements,
  Ids,
  IdsLive,
  WebhookConfig,
  type WebhookConfigService
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { hostname } from "node:os"
import { HttpRouter, type HttpServer, type HttpServerError } from "effect/http"
import { Effect, Layer } from "effect"
import * as ApiKeys from "../auth/ApiKeys.js"
import * as StoredKeyCache from "../auth/storedKeyCache.js"
import { Gate, GateLive } from "../auth/Gate.js"
import { ApiOnGate } from "../Http.js"
import { AddressRateLimit, type AddressRateLimitSettings } from "../rateLimit/AddressRateLimit.js"
import * as RateLimiter from "../rateLimit/RateLimiter.js"
import { drainConnections } from "./drainConnections.js"
import type { HostConfig } from "./HostConfig.js"
import { hostMiddleware } from "./hostMiddleware.js"
import { handedOn, installRequestFront } from "./requestFront.js"
import { divertRequests, type Taker } from "./divertRequests.js"
import { recordCreates } from "./recordCreates.js"
import { recordReads } from "./recordReads.js"
import { frontRecordsOf } from "./frontRecords.js"
import * as JsonLogger from "./jsonLogger.js"
import { answerParserErrors } from "./parserErrors.js"
import { purgeSchedule } from "./purgeSchedule.js"
import * as NodeWebhookTransport from "../webhooks/NodeWebhookTransport.js"
import { type StorageChoice, type StorageInUse, storageLayer, type StorageSetupError } from "./storage.js"

/** What HostLive needs besides an engine: keys are resolved (the dev key already made). */
export type ServeOptions = Omit<HostConfig, "storage" | "dataDir" | "apiKeys" | "webhooks"> & {
  /** The host's own keys; the keys stored in the engine (`dealstream keys create`) are accepted as well. */
  readonly apiKeys: ReadonlyArray<ApiKeys.ApiKey>
  /** Who holds this host's delivery leases; default `<hostname>:<pid>:<random>`, unique per host. */
  readonly workerOwner?: string
  /**
   * Requests per second per client address (default ten times `rateLimit`) and bucket size
   * (default ten times `rateBurst`), charged before the API key is looked up. Left out, the
   * AddressRateLimit reference's settings apply (an embedder may provide it instead).
   */
  readonly ipRateLimit?: number
  readonly ipRateBurst?: number
  /** Proxies (addresses or subnets) whose `X-Forwarded-For` names the client; none by default. */
  readonly trustProxy?: ReadonlyArray<string>
  /**
   * How long a stored key's answer is trusted without hearing of a change (default 5 s): a change
   * to a key reaches every host by the storage's signal, and within this should a signal be lost.
   */
  readonly storedKeyMillis?: number
  /** Record GETs, list pages and creates answered by the host's front (StartOptions.frontAnswers); default true. */
  readonly frontAnswers?: boolean
}

const workerOwner = () => `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`

/** The options' address limit over the one in context (the reference's default, or an embedder's). */
const addressLimitOf = (options: ServeOptions, inContext: AddressRateLimitSettings): AddressRateLimitSettings => ({
  ...inContext,
  ...(options.ipRateLimit === undefined ? {} : { rate: options.ipRateLimit }),
  ...(options.ipRateBurst === undefined ? {} : { burst: options.ipRateBurst }),
  ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy })
})

/**
 * The HTTP host over any Engine: serves the API on a Node server, runs a webhook delivery worker
 * (every host is one), purges expired records in the background. On release it stops accepting and
 * drains connections, then stops the worker (aborting attempts in flight and giving back its
 * leases), and only then lets go of the engine and its storage. Embedders with their own storage
 * provide the engine and its requirements; `startServer` provides the bundled ones.
 *
 * It serves the record type plug-ins of the RecordTypes context it is built in (ApiLive reads
 * them), which must be the engine's and its storage's: one `Layer.succeed(RecordTypes, plugins)`
 * provided below the host and the engine alike reaches all three, as they read it when built.
 */
export const HostLive = (
  options: ServeOptions
): Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError, Engine | EngineRequirements> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const ids = yield* Ids
      const addressLimit = addressLimitOf(options, yield* AddressRateLimit)
      const server = createServer()
      // Idle keep-alive connections are closed by the client, not the host: a client that sends on a
      // connection the host has just closed gets a reset (proxies and load balancers keep theirs for
      // 60 s, and Node's 5 s default made a busy test process do so). Clients learn it from the
      // Keep-Alive header and close their side first.
      server.keepAliveTimeout = 65_000
      const newRequestId = () => ids.makeUnsafe("req")
      answerParserErrors(server, newRequestId)
      installRequestFront(server, { log: options.log, newRequestId })
      // Before the router is served: its handler is attached behind the diversion.
      const diversion = divertRequests(server, handedOn)
      // The gate with what it is made of, which endpoints read too (ApiKeys: a key's revocation).
      const gate = GateLive.pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            ApiKeys.layer(options.apiKeys, {
              ...StoredKeyCache.defaults,
              ...(options.storedKeyMillis === undefined ? {} : { ttlMillis: options.storedKeyMillis })
            }),
            RateLimiter.layer({ rate: options.rateLimit, burst: options.rateBurst }),
            Layer.succeed(AddressRateLimit, addressLimit)
          )
        )
      )
      // Our own request log line (requestFront) replaces HttpRouter's, and the start banner is the
      // CLI's: stdout carries only the JSON lines of jsonLogger.
      const served = HttpRouter.serve(Layer.merge(ApiOnGate, hostMiddleware), { disableLogger: true, disableListenLog: true })
      // Built after the server and released before it: see drainConnections. Reads long-polling the
      // change feed answer first, so their connections need not wait out the drain's grace.
      const drain = Layer.effectDiscard(
        Effect.gen(function* () {
          const engine = yield* Engine
          yield* Effect.addFinalizer(() => Effect.andThen(engine.events.stopWaiting, drainConnections(server)))
        })
      )
      const purge = Layer.effectDiscard(purgeSchedule)
      // Record GETs, list pages and creates answered at the front while the host serves.
      const front =
        options.frontAnswers === false
          ? Layer.empty
          : Layer.effectDiscard(
              Effect.gen(function* () {
                const gate = yield* Gate
                const records = frontRecordsOf(yield* Engine, yield* RecordTypes)
                const context = yield* Effect.context<never>()
                const reads = recordReads(gate, records, context)
                const creates = recordCreates(gate, records, context)
                const taker: Taker = (request, response, pass) => reads(request, response, pass) || creates(request, response, pass)
                yield* Effect.acquireRelease(
                  Effect.sync(() => {
                    diversion.take = taker
                  }),
                  () =>
                    Effect.sync(() => {
                      diversion.take = () => false
                    })
                )
              })
            )
      // Built before the server and released after the drain: no request is cut off by it.
      const worker = DeliveryWorkerLive({ owner: options.workerOwner ?? workerOwner() })
      return Layer.mergeAll(drain, purge, front).pipe(
        Layer.provide(served),
        // One gate for the endpoints and the front, provided below both: a request is charged once.
        Layer.provide(gate),
        Layer.provideMerge(NodeHttpServer.layer(() => server, { port: options.port, host: options.host })),
        Layer.provide(worker),
        Layer.provide(JsonLogger.layer(options.log))
      )
    })
  )

/**
 * A layer whose parts are its own: Effect 4 memoizes layers across provides, so two engines made
 * of the same module-level layers (EngineLive, IdsLive, MemoryStorage.layer) would be one engine
 * and one memory. Its parts are built in a memo map of their own; the layer itself is memoized
 * like any other, so one value used twice in a composition is still one engine, as in Effect 3.
 */
const ofItsOwn = <A, E>(layer: Layer.Layer<A, E>): Layer.Layer<A, E> =>
  Layer.fromBuildMemo((_, scope) => Layer.buildWithMemoMap(layer, Layer.makeMemoMapUnsafe(), scope))

/** The webhook settings and the Node transport that sends deliveries over real sockets. */
const webhookServices = (config: Partial<WebhookConfigService>) => Layer.merge(WebhookConfig.layer(config), NodeWebhookTransport.layer)

/**
 * The engine over in-process memory: nothing survives a restart. Each call is an engine of its own,
 * serving the plug-ins of the RecordTypes context it is built in, as the bundled one below does.
 */
export const MemoryEngineLive = (webhooks: Partial<WebhookConfigService> = {}): Layer.Layer<Engine | EngineRequirements> =>
  ofItsOwn(
    EngineLive.pipe(Layer.provideMerge(IdsLive), Layer.provideMerge(MemoryStorage.layer), Layer.provideMerge(webhookServices(webhooks)))
  )

/** The bundled engine over the chosen storage, which says what it is for the start banner; an engine of its own on each call. */
export const engineOn = (
  choice: StorageChoice,
  webhooks: Partial<WebhookConfigService> = {}
): Layer.Layer<Engine | EngineRequirements | StorageInUse, StorageSetupError> =>
  ofItsOwn(
    EngineLive.pipe(Layer.provideMerge(IdsLive), Layer.provideMerge(storageLayer(choice)), Layer.provideMerge(webhookServices(webhooks)))
  )
