import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { EngineLive, IdsLive, RecordTypes, WebhookConfig, WebhookTransport, WebhookTransportUnavailable } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { HttpRouter, HttpServer } from "effect/http"
import { createServer } from "node:http"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiLive } from "../Http.js"
import * as RateLimiter from "../rateLimit/RateLimiter.js"
import * as ApiKeys from "./ApiKeys.js"

// ApiLive served by a router of its own, without the host's front (host/requestFront.ts): no one
// keeps a RequestInfo on the request, so Authentication shows the rate limit through a pre-response
// handler, and a refusal's body carries the bare info's request id. Over a real socket.

const KEY = "key_own_router_0123456789"

const engine = EngineLive.pipe(
  Layer.provideMerge(IdsLive),
  Layer.provideMerge(MemoryStorage.layer),
  Layer.provideMerge(WebhookConfig.layer()),
  Layer.provideMerge(Layer.succeed(WebhookTransport, WebhookTransportUnavailable))
)

const scope = Effect.runSync(Scope.make())
let base = ""

beforeAll(async () => {
  const served = HttpRouter.serve(ApiLive, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide([ApiKeys.layer([{ workspaceId: "ws_own", key: KEY }]), RateLimiter.layer({ rate: 0.001, burst: 2 })]),
    Layer.provide(engine),
    Layer.provide(Layer.succeed(RecordTypes, [])),
    Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" }))
  )
  const context = await Effect.runPromise(Layer.buildWithScope(served, scope))
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  base = `http://127.0.0.1:${address.port}`
})

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const list = () => fetch(`${base}/v1/contacts`, { headers: { authorization: `Bearer ${KEY}` } })

describe("the API under a router of an embedder's own", () => {
  it("shows the key's rate limit on each answer and refuses past it in the error shape", async () => {
    const first = await list()
    expect(first.status).toBe(200)
    expect(first.headers.get("ratelimit-limit")).toBe("2")
    expect(first.headers.get("ratelimit-remaining")).toBe("1")
    expect(first.headers.get("x-request-id")).toBeNull()
    await first.arrayBuffer()

    expect((await list()).headers.get("ratelimit-remaining")).toBe("0")

    const refused = await list()
    expect(refused.status).toBe(429)
    expect(refused.headers.get("ratelimit-remaining")).toBe("0")
    expect(refused.headers.get("retry-after")).not.toBeNull()
    expect(await refused.json()).toEqual({
      error: { code: "rate_limited", message: "rate limit exceeded", details: [], request_id: "req_none" }
    })
  })

  it("answers a missing key 401 in the error shape", async () => {
    const answer = await fetch(`${base}/v1/contacts`)
    expect(answer.status).toBe(401)
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("unauthorized")
  })
})
