import { parseDuration, parseRetrySchedule, WebhookConfig, type WebhookConfigService } from "@dealstream/core"
import { resolve } from "node:path"
import { Result } from "effect"
import * as ApiKeys from "../auth/ApiKeys.js"
import type { AddressRateLimitSettings } from "../rateLimit/AddressRateLimit.js"
import { trustedProxies } from "../rateLimit/clientAddress.js"
import { databaseHosts, databaseUrlProblem, withDatabaseHosts } from "@dealstream/storage-pg"
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
  "database-hosts": "DEALSTREAM_DATABASE_HOSTS",
  "database-timeout": "DEALSTREAM_DATABASE_TIMEOUT",
  "read-urls": "DEALSTREAM_READ_URLS",
  "read-max-lag": "DEALSTREAM_READ_MAX_LAG",
  "citus-worker-urls": "DEALSTREAM_CITUS_WORKER_URLS",
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

// Each setting is read by a function of its name (the flag or variable it came from, for a problem)
// and its text, which throws a ConfigProblem for text it cannot take.
type Reader<A> = (name: string, text: string) => A

const number =
  (check: (n: number) => boolean, expected: string): Reader<number> =>
  (name, text) => {
    const value = Number(text)
    if (text.trim() === "" || !Number.isFinite(value) || !check(value)) {
      throw new ConfigProblem(`${name} must be ${expected}, got ${JSON.stringify(text)}`)
    }
    return value
  }

const port = number((n) => Number.isInteger(n) && n >= 0 && n <= 65535, "a port number (0-65535)")
const perSecond = number((n) => n > 0, "a positive number of requests per second")
const burst = number((n) => Number.isInteger(n) && n >= 1, "a positive whole number of requests")
const concurrency = number((n) => Number.isInteger(n) && n >= 1 && n <= 1000, "a whole number of requests from 1 to 1000")

const switchValue: Reader<boolean> = (name, text) => {
  const value = text.trim().toLowerCase()
  if (["1", "true", "yes", "on"].includes(value)) return true
  if (["0", "false", "no", "off", ""].includes(value)) return false
  throw new ConfigProblem(`${name} must be 1 or 0, got ${JSON.stringify(text)}`)
}

const parsed = <A>(name: string, result: Result.Result<A, string>): A => {
  if (Result.isFailure(result)) throw new ConfigProblem(`${name}: ${result.failure}`)
  return result.success
}

const duration: Reader<number> = (name, text) => parsed(name, parseDuration(text))

/** What `read` throws, as a problem of the setting `name`. */
const problemOf = <A>(name: string, read: () => A): A => {
  try {
    return read()
  } catch (error) {
    throw new ConfigProblem(`${name}: ${(error as Error).message}`)
  }
}

const apiKeyList: Reader<ReadonlyArray<ApiKeys.ApiKey>> = (name, text) => problemOf(name, () => ApiKeys.parse(text))

const trustProxyList: Reader<ReadonlyArray<string>> = (name, text) => problemOf(name, () => trustedProxies(text.split(",")).entries)

/** Read replicas: postgres:// URLs separated by commas, each naming one server (never echoed: passwords). */
const readUrlList: Reader<ReadonlyArray<string>> = (name, text) => {
  const urls = text
    .split(/,(?=\s*postgres(?:ql)?:\/\/)/i)
    .map((url) => url.trim())
    .filter((url) => url !== "")
  if (urls.length === 0) throw new ConfigProblem(`${name} must list postgres:// URLs of read replicas, separated by commas`)
  urls.forEach((url, i) => {
    const problem = /^postgres(ql)?:\/\/./i.test(url) ? databaseUrlProblem(url) : "not a postgres:// URL"
    if (problem !== null) throw new ConfigProblem(`${name}: replica ${i + 1}: ${problem}`)
    if (databaseHosts(url).hosts.length > 1) throw new ConfigProblem(`${name}: replica ${i + 1} must name one server`)
  })
  return urls
}

/**
 * On Citus, where the host reaches a worker the coordinator knows by another address:
 * `host:port=postgres://…` pairs separated by commas (never echoed: passwords).
 */
const workerUrlMap: Reader<Readonly<Record<string, string>>> = (name, text) => {
  const pairs = text
    .split(/,(?=\s*[^,=\s]+:\d+\s*=)/)
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "")
  if (pairs.length === 0) throw new ConfigProblem(`${name} must list host:port=postgres://… pairs, separated by commas`)
  const map: Record<string, string> = {}
  pairs.forEach((pair, i) => {
    const at = pair.indexOf("=")
    const node = pair.slice(0, at).trim()
    const url = pair.slice(at + 1).trim()
    if (at < 0 || !/^[^:\s]+:\d+$/.test(node))
      throw new ConfigProblem(`${name}: pair ${i + 1} must start with the worker's host:port as pg_dist_node has it, then =`)
    const problem = /^postgres(ql)?:\/\/./i.test(url) ? databaseUrlProblem(url) : "not a postgres:// URL"
    if (problem !== null) throw new ConfigProblem(`${name}: ${node}: ${problem}`)
    if (databaseHosts(url).hosts.length > 1) throw new ConfigProblem(`${name}: ${node} must name one server`)
    map[node] = url
  })
  return map
}

/**
 * A lease that ran out while its attempt was still waiting for an answer would let another worker
 * send the delivery again during every slow attempt: it must outlast the timeout.
 */
const leaseAfter =
  (timeoutMillis: number): Reader<number> =>
  (name, text) => {
    const millis = duration(name, text)
    if (millis <= timeoutMillis)
      throw new ConfigProblem(`${name} must be longer than the webhook timeout (${timeoutMillis} ms), got ${JSON.stringify(text)}`)
    return millis
  }

/** Flags win over environment variables; both are strings as typed by the operator. */
export const resolveHostConfig = (flags: Partial<Record<Setting, string>>, env: Settings): ServeConfig => {
  const get = (setting: Setting) => flags[setting] ?? env[VARIABLES[setting]]
  const label = (setting: Setting) => (flags[setting] !== undefined ? `--${setting}` : VARIABLES[setting])
  /** The setting as `read` takes it; `unset` when neither its flag nor its variable is given. */
  const setting = <A>(name: Setting, unset: A, read: Reader<A>): A => {
    const text = get(name)
    return text === undefined ? unset : read(label(name), text)
  }

  const dataDir = resolve(get("data-dir") ?? "./.dealstream")
  const storage = resolveStorage(
    get("storage") ?? "embedded",
    label("storage"),
    get("database-url"),
    label("database-url"),
    get("database-hosts"),
    label("database-hosts"),
    dataDir,
    setting<number | undefined>("database-timeout", undefined, duration)
  )
  const reads = setting<ReadonlyArray<string> | undefined>("read-urls", undefined, readUrlList)
  const maxLag = setting<number | undefined>("read-max-lag", undefined, duration)
  const workerUrls = setting<Readonly<Record<string, string>> | undefined>("citus-worker-urls", undefined, workerUrlMap)
  let storageWithReads = storage
  if (reads !== undefined || maxLag !== undefined || workerUrls !== undefined) {
    if (storage === "memory" || !("postgres" in storage)) {
      throw new ConfigProblem(
        reads === undefined && maxLag === undefined
          ? `${label("citus-worker-urls")} needs storage postgres (the coordinator of a Citus cluster)`
          : `${label(reads !== undefined ? "read-urls" : "read-max-lag")} needs storage postgres (read replicas of its database)`
      )
    }
    storageWithReads = {
      ...storage,
      ...(reads === undefined ? {} : { readUrls: reads }),
      ...(maxLag === undefined ? {} : { readMaxLagMillis: maxLag }),
      ...(workerUrls === undefined ? {} : { citusWorkerUrls: workerUrls })
    }
  }
  const apiKeys = setting<ReadonlyArray<ApiKeys.ApiKey> | null>("api-keys", null, apiKeyList)
  // Read before the other settings, as the lease is checked against it.
  const timeoutMillis = setting("webhook-timeout", WebhookConfig.defaults.timeoutMillis, duration)
  return {
    port: setting("port", 3000, port),
    host: get("host"),
    storage: storageWithReads,
    dataDir,
    apiKeys,
    rateLimit: setting("rate-limit", 100, perSecond),
    rateBurst: setting("rate-burst", 200, burst),
    addressRateLimit: {
      // Left out when not set (ServeConfig).
      ...setting<{ rate?: number }>("ip-rate-limit", {}, (name, text) => ({ rate: perSecond(name, text) })),
      ...setting<{ burst?: number }>("ip-rate-burst", {}, (name, text) => ({ burst: burst(name, text) })),
      trustProxy: setting("trust-proxy", [], trustProxyList)
    },
    log: true,
    webhooks: {
      allowInsecure: setting("allow-insecure-webhooks", false, switchValue),
      retrySchedule: setting("webhook-retry-schedule", WebhookConfig.defaults.retrySchedule, (name, text) =>
        parsed(name, parseRetrySchedule(text))
      ),
      timeoutMillis,
      leaseMillis: setting("webhook-lease", WebhookConfig.defaults.leaseMillis, leaseAfter(timeoutMillis)),
      endpointConcurrency: setting("webhook-endpoint-concurrency", WebhookConfig.defaults.endpointConcurrency, concurrency),
      workerConcurrency: setting("webhook-concurrency", WebhookConfig.defaults.workerConcurrency, concurrency)
    }
  }
}

/**
 * The database URL (and the hosts that replace its own) is read only for `postgres`: a DATABASE_URL
 * meant for something else never turns an embedded host into a client of another database. The
 * database timeout goes with either database, only when given (PgStorage has the default).
 */
const resolveStorage = (
  kind: string,
  kindLabel: string,
  url: string | undefined,
  urlLabel: string,
  hosts: string | undefined,
  hostsLabel: string,
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
      // Never echo the URL: it usually carries a password. Several hosts are written as libpq
      // writes them (h1:5432,h2:5433), or given apart to replace the URL's (DEALSTREAM_DATABASE_HOSTS).
      const notUrl = () =>
        new ConfigProblem(
          `${urlLabel} must be a postgres:// URL (postgres://user:password@host:5432/database, several hosts as h1:5432,h2:5432)`
        )
      if (!/^postgres(ql)?:\/\/./.test(url)) throw notUrl()
      let hosted = url
      if (hosts !== undefined) {
        try {
          hosted = withDatabaseHosts(url, hosts)
        } catch (error) {
          throw new ConfigProblem(`${hostsLabel}: ${(error as Error).message}`)
        }
      }
      const problem = databaseUrlProblem(hosted)
      if (problem === "not a postgres:// URL") throw notUrl()
      if (problem !== null) {
        const fromUrl = hosts === undefined || problem.startsWith("target_session_attrs")
        throw new ConfigProblem(`${fromUrl ? urlLabel : hostsLabel}: ${problem}`)
      }
      return { postgres: hosted, ...timeout }
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
