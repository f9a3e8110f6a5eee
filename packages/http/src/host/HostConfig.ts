import { resolve } from "node:path"
import * as ApiKeys from "../auth/ApiKeys.js"

/** Everything `dealstream serve` can be told, resolved and checked. */
export interface HostConfig {
  readonly port: number
  /** Interface to listen on; all interfaces when undefined. */
  readonly host: string | undefined
  readonly storage: "memory"
  readonly dataDir: string
  /** null: use (and on first start create) the dev workspace's key under dataDir. */
  readonly apiKeys: ReadonlyArray<ApiKeys.ApiKey> | null
  readonly rateLimit: number
  readonly rateBurst: number
  /** One JSON line per request (and other host events) on stdout. */
  readonly log: boolean
}

/** A bad setting, worded for one line of CLI output. */
export class ConfigProblem extends Error {}

export type Settings = Readonly<Record<string, string | undefined>>

/** Setting name → environment variable; flags use the same names (`--rate-limit`). */
export const VARIABLES = {
  port: "PORT",
  host: "DEALSTREAM_HOST",
  storage: "DEALSTREAM_STORAGE",
  "data-dir": "DEALSTREAM_DATA_DIR",
  "api-keys": "DEALSTREAM_API_KEYS",
  "rate-limit": "DEALSTREAM_RATE_LIMIT",
  "rate-burst": "DEALSTREAM_RATE_BURST"
} as const

export type Setting = keyof typeof VARIABLES

const number = (name: string, text: string, check: (n: number) => boolean, expected: string): number => {
  const value = Number(text)
  if (text.trim() === "" || !Number.isFinite(value) || !check(value)) {
    throw new ConfigProblem(`${name} must be ${expected}, got ${JSON.stringify(text)}`)
  }
  return value
}

/** Flags win over environment variables; both are strings as typed by the operator. */
export const resolveHostConfig = (flags: Partial<Record<Setting, string>>, env: Settings): HostConfig => {
  const get = (setting: Setting) => flags[setting] ?? env[VARIABLES[setting]]
  const label = (setting: Setting) => flags[setting] !== undefined ? `--${setting}` : VARIABLES[setting]

  const storage = get("storage") ?? "memory"
  if (storage === "embedded" || storage === "postgres") {
    throw new ConfigProblem(`storage ${storage} is not available yet (use --storage memory)`)
  }
  if (storage !== "memory") {
    throw new ConfigProblem(`${label("storage")} must be memory, embedded or postgres, got ${JSON.stringify(storage)}`)
  }
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
  return {
    port: port === undefined ? 3000 : number(label("port"), port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, "a port number (0-65535)"),
    host: get("host"),
    storage,
    dataDir: resolve(get("data-dir") ?? "./.dealstream"),
    apiKeys,
    rateLimit: rate === undefined ? 100 : number(label("rate-limit"), rate, (n) => n > 0, "a positive number of requests per second"),
    rateBurst: burst === undefined ? 200 : number(label("rate-burst"), burst, (n) => Number.isInteger(n) && n >= 1, "a positive whole number of requests"),
    log: true
  }
}
