import { type RunningServer, type StorageChoice, startServer, type StartOptions } from "@dealstream/http"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"
import { testDatabase } from "../support/pg.js"
import { checkerFor } from "./openapiCheck.js"

export const KEY_A = "key_alpha_0123456789"
export const KEY_B = "key_bravo_0123456789"

export interface Answer {
  readonly status: number
  readonly headers: Headers
  /** Parsed JSON body, or null for an empty body. */
  readonly body: any
  readonly text: string
}

export interface Host {
  readonly url: string
  readonly close: () => Promise<void>
  /** A request as workspace A (or `key`), JSON body encoded unless `raw` is given. */
  readonly call: (method: string, path: string, options?: CallOptions) => Promise<Answer>
}

export interface CallOptions {
  readonly key?: string | null
  readonly body?: unknown
  readonly raw?: string | Uint8Array
  readonly headers?: Record<string, string>
  /** `manual`: a redirect (308 `merged`) is the answer, not followed. fetch follows by default. */
  readonly redirect?: "manual" | "follow"
}

/** The real host on a free port of 127.0.0.1, two workspaces; memory storage unless told otherwise. */
export const startHost = async (options: StartOptions = {}): Promise<Host> => {
  const server: RunningServer = await startServer({
    port: 0,
    host: "127.0.0.1",
    apiKeys: `ws_a:${KEY_A},ws_b:${KEY_B}`,
    log: false,
    ...options
  })
  return { url: server.url, close: server.close, call: callerOf(server.url) }
}

/**
 * Requests to the host at `url`. Every answer is checked against the OpenAPI document that host
 * serves (the operation found by method and path template; its status declared, its body and
 * declared headers matching their schemas): the test that got a non-conforming answer fails,
 * naming what does not conform.
 */
export const callerOf =
  (url: string): Host["call"] =>
  async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers }
    const key = options.key === undefined ? KEY_A : options.key
    if (key !== null) headers["authorization"] ??= `Bearer ${key}`
    let body: string | Uint8Array | undefined = options.raw
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    const response = await fetch(`${url}${path}`, {
      method,
      headers,
      body: body as RequestInit["body"],
      redirect: options.redirect ?? "follow"
    })
    const text = await response.text()
    let parsed: unknown = null
    if (text !== "" && (response.headers.get("content-type") ?? "").includes("json")) parsed = JSON.parse(text)
    const answer = { status: response.status, headers: response.headers, body: parsed, text }
    const problems = (await checkerFor(url)).problems(method, path, answer)
    if (problems.length > 0) {
      throw new Error(
        `${method} ${path} → ${answer.status} does not conform to /v1/openapi.json:\n  ${problems.join("\n  ")}\n${text.slice(0, 500)}`
      )
    }
    return answer
  }

/** Asserts the error body of API.md and returns it. */
export const errorOf = (answer: Answer) => {
  const error = answer.body?.error
  if (error === undefined) throw new Error(`expected an error body, got ${answer.status} ${answer.text}`)
  if (typeof error.code !== "string" || typeof error.message !== "string" || !Array.isArray(error.details)) {
    throw new Error(`malformed error body: ${answer.text}`)
  }
  if (error.request_id !== answer.headers.get("x-request-id")) {
    throw new Error(`request_id ${error.request_id} differs from X-Request-Id ${answer.headers.get("x-request-id")}`)
  }
  return error as {
    code: string
    message: string
    details: Array<{ path: string; message: string; id?: string; scope?: string }>
    request_id: string
  }
}

/** The storages every API suite runs on: `describe.each(STORAGES)("%s storage", (storage) => …)`. */
const ALL_STORAGES = ["memory", "postgres"] as const
export type StorageKind = (typeof ALL_STORAGES)[number]
/**
 * `DEALSTREAM_TEST_STORAGES=postgres` narrows the run (CI's second pass against another PostgreSQL
 * version need not repeat the memory variants).
 */
export const STORAGES: ReadonlyArray<StorageKind> = (() => {
  const wanted = process.env["DEALSTREAM_TEST_STORAGES"]?.split(",").map((s) => s.trim())
  if (wanted === undefined) return ALL_STORAGES
  const chosen = ALL_STORAGES.filter((s) => wanted.includes(s))
  if (chosen.length === 0) throw new Error(`DEALSTREAM_TEST_STORAGES names no known storage: ${wanted.join(",")}`)
  return chosen
})()

/**
 * A host for the enclosing describe block: started before its tests, closed after them. On
 * postgres it gets a database of its own on the run's server (test/support/pg.ts), dropped after.
 */
export const hostFor = (storage: StorageKind, options: StartOptions = {}): Host => {
  let started: Host | undefined
  let database: Scope.Closeable | undefined
  beforeAll(async () => {
    let choice: StorageChoice = "memory"
    if (storage === "postgres") {
      database = Effect.runSync(Scope.make())
      choice = { postgres: await Effect.runPromise(Scope.provide(testDatabase, database)) }
    }
    started = await startHost({ ...options, storage: choice })
  })
  afterAll(async () => {
    await started?.close()
    if (database !== undefined) await Effect.runPromise(Scope.close(database, Exit.void))
  })
  const current = () => {
    if (started === undefined) throw new Error("the host starts in beforeAll")
    return started
  }
  return {
    get url() {
      return current().url
    },
    close: () => current().close(),
    call: (method, path, options) => current().call(method, path, options)
  }
}
