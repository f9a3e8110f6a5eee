import { Engine, RecordTypes, type RecordTypePlugin, type WebhookConfigService } from "@dealstream/core"
import { HttpServer } from "effect/http"
import { NetAddress } from "effect/net"
import { Cause, Context, Effect, Exit, Layer, Scope } from "effect"
import type { ApiKey } from "../auth/ApiKeys.js"
import * as ApiKeys from "../auth/ApiKeys.js"
import { loadOrCreateDevApiKey } from "../auth/devApiKey.js"
import { trustedProxies } from "../rateLimit/clientAddress.js"
import { engineOn, HostLive } from "./HostLive.js"
import { type StorageChoice, StorageInUse } from "./storage.js"

export interface StartOptions {
  /** Default 3000; 0 picks a free port (see `url`). */
  readonly port?: number
  /** Interface to listen on; all interfaces when absent. */
  readonly host?: string
  /**
   * `"ws_a:key_a,ws_b:key_b"` or parsed keys. Keys stored with `dealstream keys create` are accepted
   * too. Absent: when storage holds no stored key either, the dev workspace's key under dataDir.
   */
  readonly apiKeys?: string | ReadonlyArray<ApiKey>
  /** Holds the dev API key when no keys are given. Default `./.dealstream`. */
  readonly dataDir?: string
  /**
   * Default `"memory"`, so that embedding the host starts no database by surprise (the CLI's
   * default is `{ embedded: dataDir }`). `{ postgres: url }` may be shared by several hosts.
   */
  readonly storage?: StorageChoice
  /** Requests per second per key (default 100) and bucket size (default 200). */
  readonly rateLimit?: number
  readonly rateBurst?: number
  /**
   * Requests per second per client address (default ten times `rateLimit`) and bucket size
   * (default ten times `rateBurst`), charged before the API key is looked up, on every route
   * that needs a key.
   */
  readonly ipRateLimit?: number
  readonly ipRateBurst?: number
  /**
   * Proxies (addresses or subnets, `10.0.0.0/8`) whose `X-Forwarded-For` names the client for the
   * address limit. Default none: the socket's peer is the client.
   */
  readonly trustProxy?: ReadonlyArray<string>
  /** JSON log lines on stdout (default true). */
  readonly log?: boolean
  /**
   * Webhook deliveries: `allowInsecure` (http:// and private targets, development and tests only),
   * `retrySchedule` (ms before each retry) and `timeoutMillis`; API.md's defaults otherwise.
   */
  readonly webhooks?: Partial<WebhookConfigService>
  /**
   * Record types served beside the built-in ones (core's RecordTypePlugin): each at `/v1/<plural>`,
   * in the trash, the webhook events and the OpenAPI document. The engine, its storage and the API
   * are all given them (the RecordTypes context). Default none.
   */
  readonly recordTypes?: ReadonlyArray<RecordTypePlugin>
  /**
   * How long a stored key's answer is trusted without hearing of a change (default 5 s). Changes to
   * keys reach every host at once by the storage's signal; this bounds a lost signal.
   */
  readonly storedKeyMillis?: number
  /**
   * The API's most frequent requests (a record's GET, a list page, a create without an
   * Idempotency-Key) answered by the host's front rather than by HttpApi's endpoints, with the same
   * answers (host/recordReads.ts, host/recordCreates.ts); default true. False sends every request
   * through HttpApi.
   */
  readonly frontAnswers?: boolean
}

export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string
  /** Set when the host runs on the dev workspace's key (no keys configured, none stored). */
  readonly devApiKey: { readonly key: ApiKey; readonly file: string; readonly created: boolean } | null
  /** The keys stored with `dealstream keys create` when the host started; null when keys were configured. */
  readonly storedApiKeys: { readonly active: number; readonly revoked: number } | null
  /** The storage in use, in words (`postgres at 127.0.0.1:5432/crm`), never with a password. */
  readonly storage: string
  /**
   * Stops accepting, lets requests in flight finish, stops the delivery worker (giving back its
   * leases), then releases the engine and its storage.
   */
  readonly close: () => Promise<void>
}

/** A startup failure worded for one line (port taken, bad key file, …). */
export class StartupError extends Error {}

const describeFailure = (cause: Cause.Cause<unknown>, port: number): string => {
  const failure = cause.reasons.find(Cause.isFailReason)?.error ?? cause.reasons.find(Cause.isDieReason)?.defect
  // Storage set-up errors are already one line for an operator (`cannot connect to PostgreSQL at …`).
  const tag = (failure as { _tag?: unknown } | undefined)?._tag
  if (tag === "DatabaseError" || tag === "EmbeddedPostgresError") return (failure as Error).message
  const underlying = (failure as { cause?: unknown } | undefined)?.cause ?? failure
  const code = (underlying as NodeJS.ErrnoException | undefined)?.code
  if (code === "EADDRINUSE") return `port ${port} is already in use`
  if (code === "EACCES") return `no permission to listen on port ${port}`
  return `cannot start: ${underlying instanceof Error ? underlying.message : String(underlying)}`
}

/** Where clients reach the host; all interfaces are `localhost` for the one on the same machine. */
const urlOf = (address: NetAddress.SocketAddress): string => {
  if (address._tag === "UnixPathAddress") return `http+unix://${address.path}`
  const ip = NetAddress.formatIp(address.address)
  const host = ip === "0.0.0.0" || ip === "::" ? "localhost" : ip.includes(":") ? `[${ip}]` : ip
  return `http://${host}:${address.port}`
}

/** The bundled host over the chosen storage as a Promise API, for the CLI, tests and embedders. */
export const startServer = async (options: StartOptions = {}): Promise<RunningServer> => {
  const dataDir = options.dataDir ?? "./.dealstream"
  const configured = startupStep(() =>
    options.apiKeys === undefined ? null : typeof options.apiKeys === "string" ? ApiKeys.parse(options.apiKeys) : options.apiKeys
  )
  const trustProxy = startupStep(() => trustedProxies(options.trustProxy ?? []).entries)
  const port = options.port ?? 3000
  const scope = Effect.runSync(Scope.make())
  // Every part is built with the plug-ins, the engine and its storage as the API.
  const build = async <A, E>(effect: Effect.Effect<A, E, Scope.Scope>): Promise<A> => {
    const exit = await Effect.runPromiseExit(
      Scope.provide(effect, scope).pipe(Effect.provideService(RecordTypes, options.recordTypes ?? []))
    )
    if (Exit.isSuccess(exit)) return exit.value
    await Effect.runPromise(Scope.close(scope, exit))
    throw new StartupError(describeFailure(exit.cause, port))
  }

  // Storage first: whether a dev key is made depends on the keys it holds.
  const engine = await build(Layer.build(engineOn(options.storage ?? "memory", options.webhooks)))
  const stored = configured === null ? await build(Effect.flatMap(Engine, (e) => e.apiKeys.list(null)).pipe(Effect.provide(engine))) : null
  // The dev key is for a host nobody has given keys to: none configured and none ever stored. Once
  // an operator has stored a key (even one revoked since), the host never makes one up.
  let dev: ReturnType<typeof loadOrCreateDevApiKey> | null = null
  if (stored !== null && stored.data.length === 0) {
    try {
      dev = startupStep(() => loadOrCreateDevApiKey(dataDir))
    } catch (error) {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      throw error
    }
  }
  const built = await build(
    Layer.build(
      HostLive({
        port,
        host: options.host,
        apiKeys: configured ?? (dev === null ? [] : [dev.apiKey]),
        rateLimit: options.rateLimit ?? 100,
        rateBurst: options.rateBurst ?? 200,
        ...(options.ipRateLimit === undefined ? {} : { ipRateLimit: options.ipRateLimit }),
        ...(options.ipRateBurst === undefined ? {} : { ipRateBurst: options.ipRateBurst }),
        trustProxy,
        ...(options.storedKeyMillis === undefined ? {} : { storedKeyMillis: options.storedKeyMillis }),
        ...(options.frontAnswers === undefined ? {} : { frontAnswers: options.frontAnswers }),
        log: options.log ?? true
      }).pipe(Layer.provide(Layer.succeedContext(engine)))
    )
  )

  const url = urlOf(Context.get(built, HttpServer.HttpServer).address)
  let closing: Promise<void> | undefined
  return {
    url,
    devApiKey: dev === null ? null : { key: dev.apiKey, file: dev.file, created: dev.created },
    storedApiKeys:
      stored === null
        ? null
        : {
            active: stored.data.filter((key) => key["revoked_at"] === null).length,
            revoked: stored.data.filter((key) => key["revoked_at"] !== null).length
          },
    storage: Context.get(engine, StorageInUse).description,
    close: () => (closing ??= Effect.runPromise(Scope.close(scope, Exit.void)))
  }
}

/** Runs a step whose failure is an operator's problem (a bad key list, an unreadable key file) as a StartupError. */
function startupStep<A>(step: () => A): A {
  try {
    return step()
  } catch (error) {
    throw new StartupError(error instanceof Error ? error.message : String(error))
  }
}
