import {
  type DeliveryQueue,
  EngineLive,
  IdsLive,
  Storage,
  WebhookConfig,
  WebhookTransport,
  WebhookTransportUnavailable
} from "@dealstream/core"
import { HostLive, startServer } from "@dealstream/http"
import { MemoryStorage } from "@dealstream/storage-memory"
import { request } from "node:http"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AddressRateLimit, type AddressRateLimitSettings } from "../../packages/http/src/rateLimit/AddressRateLimit.js"
import { pgStorageLayer } from "../support/pg.js"
import { KEY_A, STORAGES } from "./client.js"
import { lines, run, serve } from "./cli.js"

// Linux routes all of 127.0.0.0/8 to the loopback interface, so a client socket bound to 127.0.0.2
// reaches a host on 127.0.0.1 as another machine would: the host sees 127.0.0.2 as its peer.
const NEIGHBOUR = "127.0.0.2"
const CLIENT = "127.0.0.1"

interface Reply {
  readonly status: number
  readonly headers: Record<string, string | undefined>
  readonly body: any
}

/** One request on a connection of its own from `from`, so the host sees that address. */
const send = (base: string, path: string, from: string, headers: Record<string, string> = {}): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, base)
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "GET", headers, localAddress: from, agent: false },
      (res) => {
        let text = ""
        res
          .setEncoding("utf8")
          .on("data", (chunk) => (text += chunk))
          .on("error", reject)
          .on("end", () => {
            const flat = Object.fromEntries(
              Object.entries(res.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value])
            )
            resolve({ status: res.statusCode!, headers: flat, body: text === "" ? null : JSON.parse(text) })
          })
      }
    )
    req.on("error", reject).end()
  })

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/** The 429 of the contract: `rate_limited` in the error body, Retry-After and the RateLimit-* of the bucket that refused. */
const expectRateLimited = (reply: Reply, limit: number) => {
  expect(reply.status).toBe(429)
  expect(reply.body.error).toEqual({
    code: "rate_limited",
    message: "rate limit exceeded",
    details: [],
    request_id: reply.headers["x-request-id"]
  })
  expect(Number(reply.headers["retry-after"])).toBeGreaterThanOrEqual(1)
  expect(reply.headers["ratelimit-limit"]).toBe(String(limit))
  expect(reply.headers["ratelimit-remaining"]).toBe("0")
  expect(Number(reply.headers["ratelimit-reset"])).toBeGreaterThan(0)
}

/**
 * The storage as given, with its reads of stored API keys counted: a key the host was not given
 * is looked up by digest in the `api_key` documents, one read per request (unknown keys are not
 * cached, see storedKeyCache.ts).
 */
const countingKeyReads = <E>(base: Layer.Layer<Storage | DeliveryQueue, E>) => {
  let reads = 0
  const layer = Layer.effectContext(
    Effect.gen(function* () {
      const context = yield* Effect.context<Storage | DeliveryQueue>()
      const storage = Context.get(context, Storage)
      const getDocument: typeof storage.getDocument = (collection, workspaceId, id) =>
        Effect.suspend(() => {
          if (collection === "api_key") reads++
          return storage.getDocument(collection, workspaceId, id)
        })
      return Context.add(context, Storage, { ...storage, getDocument })
    })
  ).pipe(Layer.provide(base))
  return { layer, reads: () => reads }
}

// Refill is one token per 1000 s: within a test run the bucket only empties, so counts are exact.
const SLOW = 0.001
const BURST = 5
const FLOOD = 20

describe.each(STORAGES)("a flood of unknown keys on %s storage", (storage) => {
  const counted = countingKeyReads(storage === "memory" ? MemoryStorage.layer : pgStorageLayer)
  let base = ""
  let scope: Scope.Closeable
  beforeAll(async () => {
    const settings: AddressRateLimitSettings = { rate: SLOW, burst: BURST }
    // HostLive over an engine whose storage is counted; the address limit as startServer provides it.
    const host = HostLive({
      port: 0,
      host: CLIENT,
      apiKeys: [{ workspaceId: "ws_a", key: KEY_A }],
      rateLimit: 100,
      rateBurst: 100,
      log: false
    }).pipe(
      Layer.provide(
        EngineLive.pipe(
          Layer.provideMerge(IdsLive),
          Layer.provideMerge(counted.layer),
          Layer.provideMerge(WebhookConfig.layer()),
          Layer.provideMerge(Layer.succeed(WebhookTransport, WebhookTransportUnavailable))
        )
      ),
      Layer.provide(Layer.succeed(AddressRateLimit, settings))
    )
    scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(host, scope))
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
    base = `http://${CLIENT}:${address.port}`
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

  it("is refused with 429 before storage once the address's burst is spent, while a valid key from another address is served", async () => {
    const flood = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) => send(base, "/v1/contacts", NEIGHBOUR, bearer(`guess_${i}_0123456789`)))
    )
    // Only the requests the address limit let through were looked up.
    expect(counted.reads()).toBe(BURST)
    const statuses = flood.map((reply) => reply.status)
    expect(statuses.filter((s) => s === 401)).toHaveLength(BURST)
    expect(statuses.filter((s) => s === 429)).toHaveLength(FLOOD - BURST)
    for (const reply of flood.filter((r) => r.status === 429)) expectRateLimited(reply, BURST)

    // Another address: its own bucket, so a valid key is served, with the headers of the limit
    // nearer to refusing it (the address's 5 here, against the key's 100).
    const served = await send(base, "/v1/contacts", CLIENT, bearer(KEY_A))
    expect(served.status).toBe(200)
    expect(served.body.data).toEqual([])
    expect([served.headers["ratelimit-limit"], served.headers["ratelimit-remaining"]]).toEqual([String(BURST), String(BURST - 1)])
    // And an unknown key from there still gets its 401, after a lookup.
    expect((await send(base, "/v1/contacts", CLIENT, bearer("guess_other_0123456789"))).status).toBe(401)
    expect(counted.reads()).toBe(BURST + 1)

    // The spent address is refused with a valid key too: the address is charged before any key is read.
    expectRateLimited(await send(base, "/v1/contacts", NEIGHBOUR, bearer(KEY_A)), BURST)
    // Without a key it is refused as well, rather than told 401.
    expectRateLimited(await send(base, "/v1/contacts", NEIGHBOUR), BURST)
    // Routes come first, and routes that need no key are not limited.
    expect((await send(base, "/v1/nowhere", NEIGHBOUR, bearer(KEY_A))).status).toBe(404)
    expect((await send(base, "/healthz", NEIGHBOUR)).status).toBe(200)
    expect((await send(base, "/readyz", NEIGHBOUR)).status).toBe(200)
    expect((await send(base, "/v1/openapi.json", NEIGHBOUR)).status).toBe(200)
    expect(counted.reads()).toBe(BURST + 1)
  })
})

describe("the address limit through startServer", () => {
  const started: Array<{ close: () => Promise<void> }> = []
  afterAll(() => Promise.all(started.map((server) => server.close())))
  const start = async (options: Parameters<typeof startServer>[0]) => {
    const server = await startServer({ port: 0, host: CLIENT, apiKeys: `ws_a:${KEY_A}`, log: false, ...options })
    started.push(server)
    return server.url.replace("localhost", CLIENT)
  }

  it("defaults to ten times the per-key limit", async () => {
    const base = await start({ rateLimit: SLOW / 10, rateBurst: 2 })
    const replies = []
    for (let i = 0; i < 21; i++) replies.push(await send(base, "/v1/contacts", NEIGHBOUR, bearer(`guess_${i}_0123456789`)))
    expect(replies.slice(0, 20).map((r) => r.status)).toEqual(Array(20).fill(401))
    expectRateLimited(replies[20]!, 20)
  })

  it("ignores X-Forwarded-For unless the peer is a trusted proxy", async () => {
    const untrusting = await start({ ipRateLimit: SLOW, ipRateBurst: 2 })
    const forged = []
    for (let i = 0; i < 3; i++) forged.push(await send(untrusting, "/v1/contacts", NEIGHBOUR, { "x-forwarded-for": `203.0.113.${i}` }))
    expect(forged.map((r) => r.status)).toEqual([401, 401, 429])

    // Behind a proxy on 127.0.0.1: each client it names has its own bucket.
    const proxied = await start({ ipRateLimit: SLOW, ipRateBurst: 2, trustProxy: [CLIENT] })
    const viaProxy = (client: string) => send(proxied, "/v1/contacts", CLIENT, { "x-forwarded-for": client, ...bearer(KEY_A) })
    expect([(await viaProxy("203.0.113.1")).status, (await viaProxy("203.0.113.1")).status]).toEqual([200, 200])
    expectRateLimited(await viaProxy("203.0.113.1"), 2)
    expect((await viaProxy("203.0.113.2")).status).toBe(200)
    // A client in front of the proxy cannot pick its bucket: the proxy appended the address it saw.
    expectRateLimited(await viaProxy("198.51.100.9, 203.0.113.1"), 2)
    // A peer that is not the trusted proxy is counted as itself, whatever it writes.
    const direct = []
    for (let i = 0; i < 3; i++)
      direct.push(await send(proxied, "/v1/contacts", NEIGHBOUR, { "x-forwarded-for": "203.0.113.7", ...bearer(KEY_A) }))
    expect(direct.map((r) => r.status)).toEqual([200, 200, 429])
    expect((await viaProxy("203.0.113.7")).status).toBe(200)
  })

  it("refuses a trusted proxy that is not an address or subnet before starting", async () => {
    await expect(start({ trustProxy: ["proxy.internal"] })).rejects.toThrow('"proxy.internal" is not an IP address or subnet')
  })
})

// The built CLI (`npx tsc -b` first), as cli.e2e.pg.spec.ts runs it.
describe("dealstream serve address limit settings", () => {
  it("takes --ip-rate-limit and --ip-rate-burst, and reports bad values in one line", async () => {
    const cli = await serve(["--api-keys", `ws_a:${KEY_A}`, "--ip-rate-limit", String(SLOW), "--ip-rate-burst", "2"])
    try {
      const base = cli.url.replace("localhost", CLIENT)
      const replies = []
      for (let i = 0; i < 3; i++) replies.push(await send(base, "/v1/contacts", NEIGHBOUR, bearer(KEY_A)))
      expect(replies.slice(0, 2).map((r) => r.status)).toEqual([200, 200])
      expectRateLimited(replies[2]!, 2)
      expect((await send(base, "/v1/contacts", CLIENT, bearer(KEY_A))).status).toBe(200)
    } finally {
      cli.child.kill("SIGTERM")
      await cli.exit
    }

    const rate = run(["serve"], { DEALSTREAM_IP_RATE_LIMIT: "fast" })
    expect(await rate.exit).toBe(1)
    expect(lines(rate.stderr())).toEqual([
      'dealstream: DEALSTREAM_IP_RATE_LIMIT must be a positive number of requests per second, got "fast"'
    ])
    const burst = run(["serve", "--ip-rate-burst", "2.5"])
    expect(await burst.exit).toBe(1)
    expect(lines(burst.stderr())).toEqual(['dealstream: --ip-rate-burst must be a positive whole number of requests, got "2.5"'])
    const proxy = run(["serve"], { DEALSTREAM_TRUST_PROXY: "10.0.0.0/8,lb.internal" })
    expect(await proxy.exit).toBe(1)
    expect(lines(proxy.stderr())).toEqual([
      'dealstream: DEALSTREAM_TRUST_PROXY: "lb.internal" is not an IP address or subnet (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)'
    ])
    // A CLI process per case, one after another: seconds each on a loaded 2-core machine.
  }, 90_000)
})
