import { parseDuration, parseRetrySchedule, WebhookConfig, type WebhookConfigService } from "@dealstream/core"
import { resolve } from "node:path"
import { Result } from "effect"
import * as ApiKeys from "../auth/ApiKeys.js"
import type { AddressRateLimitSettings } from "../rateLimit/AddressRateLimit.js"
import { trustedProxies } from "../rateLimit/clientAddress.js"
import type { StorageChoice } from "./storage.js"

export const STORAGE_KINDS = ["embedded", "postgres", "memory"] as const
export type StorageKind = (typeof STORAGE_KINDS)[number]

/** Everything `dealstream serve` can be told, resolved and checked. */
export interface HostConfig {
  readonly port: number
  /** Interface to listen on; all interfaces when undefined. */
  readonly host: string | undefined
  readonly storage: StorageChoice
  readonly dataDir: string
  /**
   * Keys stored with `dealstream keys create` are accepted besides these. null: none configured; then,
   * while no key is stored either, the dev workspace's key under dataDir (made on first start).
   */
  readonly apiKeys: ReadonlyArray<ApiKeys.ApiKey> | null
  readonly rateLimit: number
  readonly rateBurst: number
  /** One JSON line per request (and other host events) on stdout. */
  readonly log: boolean
  /** Insecure targets, retry schedule and timeout of webhook deliveries. */
  readonly webhooks: WebhookConfigService
}

/**
 * Everything `dealstream serve` can be told: the host's settings and the limit per client
 * address, which reaches HostLive as its options `ipRateLimit`, `ipRateBurst` and `trustProxy`
 * (through startServer), each left out when not set.
 */
export interface ServeConfig extends HostConfig {
  /** Unset rate and burst: ten times the per-key ones. */
  readonly addressRateLimit: AddressRateLimitSettings
}

/** A bad setting, worded for one line of CLI output. */
export class ConfigProblem extends Error {}

export type Settings = Readonly<Record<string, string | undefined>>

/** Setting name → environment variable; flags use the same names (`--rate-limit`). */
export const VARIABLES = {
  port: "PORT",
  host: "DEALSTREAM_HOST",
  storage: "DEALSTREAM_STORAGE",
  "database-url": "DATABASE_URL",
  "database-timeout": "DEALSTREAM_DATABASE_TIMEOUT",
  "data-dir": "DEALSTREAM_DATA_DIR",
  "api-keys": "DEALSTREAM_API_KEYS",
  "rate-limit": "DEALSTREAM_RATE_LIMIT",
  "rate-burst": "DEALSTREAM_RATE_BURST",
  "ip-rate-limit": "DEALSTREAM_IP_RATE_LIMIT",
  "ip-rate-burst": "DEALSTREAM_IP_RATE_BURST",
  "trust-proxy": "DEALSTREAM_TRUST_PROXY",
  "allow-insecure-webhooks": "DEALSTREAM_ALLOW_INSECURE_WEBHOOKS",
  "webhook-retry-schedule": "DEALSTREAM_WEBHOOK_RETRY_SCHEDULE",
  "webhook-timeout": "DEALSTREAM_WEBHOOK_TIMEOUT",
  "webhook-lease": "DEALSTREAM_WEBHOOK_LEASE",
  "webhook-endpoint-concurrency": "DEALSTREAM_WEBHOOK_ENDPOINT_CONCURRENCY",
  "webhook-concurrency": "DEALSTREAM_WEBHOOK_CONCURRENCY"
} as const

/** Settings that are switches: `--allow-insecure-webhooks` alone turns one on. */
export const SWITCHES: ReadonlyArray<Setting> = ["allow-insecure-webhooks"]

export type Setting = keyof typeof VARIABLES

const number = (name: string, text: string, check: (n: number) => boolean, expected: string): number => {
  const value = Number(text)
  if (text.trim() === "" || !Number.isFinite(value) || !check(value)) {
    throw new ConfigProblem(`${name} must be ${expected}, got ${JSON.stringify(text)}`)
  }
  return value
}

const switchValue = (name: string, text: string): boolean => {
  const value = text.trim().toLowerCase()
  if (["1", "true", "yes", "on"].includes(value)) return true
  if (["0", "false", "no", "off", ""].includes(value)) return false
  throw new ConfigProblem(`${name} must be 1 or 0, got ${JSON.stringify(text)}`)
}

const parsed = <A>(name: string, result: Result.Result<A, string>): A => {
  if (Result.isFailure(result)) throw new ConfigProblem(`${name}: ${result.failure}`)
  return result.success
}

/** Flags win over environment variables; both are strings as typed by the operator. */
export const resolveHostConfig = (flags: Partial<Record<Setting, string>>, env: Settings): ServeConfig => {
  const get = (setting: Setting) => flags[setting] ?? env[VARIABLES[setting]]
  const label = (setting: Setting) => (flags[setting] !== undefined ? `--${setting}` : VARIABLES[setting])

  const dataDir = resolve(get("data-dir") ?? "./.dealstream")
  const databaseTimeout = get("database-timeout")
  const storage = resolveStorage(
    get("storage") ?? "embedded",
    label("storage"),
    get("database-url"),
    label("database-url"),
    dataDir,
    databaseTimeout === undefined ? undefined : parsed(label("database-timeout"), parseDuration(databaseTimeout))
  )
  const apiKeysText = get("api-keys")
  let apiKeys: ReadonlyArray<ApiKeys.ApiKey> | null = null
  if (apiKeysText !== undefined) {
    try {
      apiKeys = ApiKeys.parse(apiKeysText)
    } catch (error) {
      throw new ConfigProblem(`${label("api-keys")}: ${(error as Error).message}`)
    }
  }
  const port = get("port")
  const rate = get("rate-limit")
  const burst = get("rate-burst")
  const ipRate = get("ip-rate-limit")
  const ipBurst = get("ip-rate-burst")
  const proxies = get("trust-proxy")
  const insecure = get("allow-insecure-webhooks")
  const schedule = get("webhook-retry-schedule")
  const timeout = get("webhook-timeout")
  const lease = get("webhook-lease")
  const endpointConcurrency = get("webhook-endpoint-concurrency")
  const workerConcurrency = get("webhook-concurrency")
  const requests = (setting: Setting, text: string) =>
    number(label(setting), text, (n) => Number.isInteger(n) && n >= 1 && n <= 1000, "a whole number of requests from 1 to 1000")
  const timeoutMillis =
    timeout === undefined ? WebhookConfig.defaults.timeoutMillis : parsed(label("webhook-timeout"), parseDuration(timeout))
  return {
    port:
      port === undefined
        ? 3000
        : number(label("port"), port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, "a port number (0-65535)"),
    host: get("host"),
    storage,
    dataDir,
    apiKeys,
    rateLimit: rate === undefined ? 100 : number(label("rate-limit"), rate, (n) => n > 0, "a positive number of requests per second"),
    rateBurst:
      burst === undefined
        ? 200
        : number(label("rate-burst"), burst, (n) => Number.isInteger(n) && n >= 1, "a positive whole number of requests"),
    addressRateLimit: {
      ...(ipRate === undefined
        ? {}
        : { rate: number(label("ip-rate-limit"), ipRate, (n) => n > 0, "a positive number of requests per second") }),
      ...(ipBurst === undefined
        ? {}
        : { burst: number(label("ip-rate-burst"), ipBurst, (n) => Number.isInteger(n) && n >= 1, "a positive whole number of requests") }),
      trustProxy: proxies === undefined ? [] : trustProxyList(label("trust-proxy"), proxies)
    },
    log: true,
    webhooks: {
      allowInsecure: insecure === undefined ? false : switchValue(label("allow-insecure-webhooks"), insecure),
      retrySchedule:
        schedule === undefined
          ? WebhookConfig.defaults.retrySchedule
          : parsed(label("webhook-retry-schedule"), parseRetrySchedule(schedule)),
      timeoutMillis,
      leaseMillis: lease === undefined ? WebhookConfig.defaults.leaseMillis : leaseAfter(label("webhook-lease"), lease, timeoutMillis),
      endpointConcurrency:
        endpointConcurrency === undefined
          ? WebhookConfig.defaults.endpointConcurrency
          : requests("webhook-endpoint-concurrency", endpointConcurrency),
      workerConcurrency:
        workerConcurrency === undefined ? WebhookConfig.defaults.workerConcurrency : requests("webhook-concurrency", workerConcurrency)
    }
  }
}

/**
 * A lease that ran out while its attempt was still waiting for an answer would let another worker
 * send the delivery again during every slow attempt: it must outlast the timeout.
 */
const leaseAfter = (name: string, text: string, timeoutMillis: number): number => {
  const millis = parsed(name, parseDuration(text))
  if (millis <= timeoutMillis)
    throw new ConfigProblem(`${name} must be longer than the webhook timeout (${timeoutMillis} ms), got ${JSON.stringify(text)}`)
  return millis
}

const trustProxyList = (name: string, text: string): ReadonlyArray<string> => {
  try {
    return trustedProxies(text.split(",")).entries
  } catch (error) {
    throw new ConfigProblem(`${name}: ${(error as Error).message}`)
  }
}

/**
 * The database URL is read only for `postgres`: a DATABASE_URL meant for something else never
 * turns an embedded host into a client of another database. The database timeout goes with either
 * database, only when given (PgStorage has the default).
 */
const resolveStorage = (
  kind: string,
  kindLabel: string,
  url: string | undefined,
  urlLabel: string,
  dataDir: string,
  timeoutMillis: number | undefined
): StorageChoice => {
  const timeout = timeoutMillis === undefined ? {} : { databaseTimeoutMillis: timeoutMillis }
  switch (kind) {
    case "memory":
      return "memory"
    case "embedded":
      return { embedded: dataDir, ...timeout }
    case "postgres": {
      if (url === undefined || url.trim() === "") {
        throw new ConfigProblem(
          `storage postgres needs DATABASE_URL (or --database-url), e.g. postgres://user:password@localhost:5432/dealstream`
        )
      }
      // Never echo the URL: it usually carries a password.
      if (!/^postgres(ql)?:\/\/./.test(url) || !URL.canParse(url)) {
        throw new ConfigProblem(`${urlLabel} must be a postgres:// URL (postgres://user:password@host:5432/database)`)
      }
      return { postgres: url, ...timeout }
    }
    default:
      throw new ConfigProblem(
        `${kindLabel} must be ${STORAGE_KINDS.join(", ").replace(/, (?=[^,]*$)/, " or ")}, got ${JSON.stringify(kind)}`
      )
  }
}

/** The storage kind of a choice, as the operator names it. */
export const storageKind = (choice: StorageChoice): StorageKind =>
  choice === "memory" ? "memory" : "embedded" in choice ? "embedded" : "postgres"
