import { InlineProjections, inlineStore } from "@dealstream/core"
import { HostLive, MemoryEngineLive } from "@dealstream/http"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { contactEmails } from "../engine/inlineProjections.js"
import { callerOf, errorOf, type Host, KEY_A } from "./client.js"

/*
 * An embedder's inline projection failing under the HTTP host: the write is answered 500
 * `projection_failed` in the error shape, naming the projection, and nothing of it is stored.
 */
describe("a host whose engine runs an inline projection", () => {
  const store = inlineStore<ReadonlyMap<string, string>>(new Map())
  let scope: Scope.Closeable | undefined
  let call: Host["call"] | undefined
  beforeAll(async () => {
    const host = HostLive({
      port: 0,
      host: "127.0.0.1",
      apiKeys: [{ workspaceId: "ws_a", key: KEY_A }],
      rateLimit: 100,
      rateBurst: 200,
      log: false
    }).pipe(Layer.provide(MemoryEngineLive()), Layer.provide(Layer.succeed(InlineProjections, [contactEmails(store)])))
    scope = Effect.runSync(Scope.make())
    const address = Context.get(await Effect.runPromise(Layer.buildWithScope(host, scope)), HttpServer.HttpServer).address
    if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
    call = callerOf(`http://127.0.0.1:${address.port}`)
  })
  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("answers a write whose projection fails with 500 projection_failed, and stores nothing", async () => {
    const stored = await call!("POST", "/v1/contacts", { body: { email: "ada@x.io" } })
    expect(stored.status, stored.text).toBe(201)
    const failed = await call!("POST", "/v1/contacts", { body: { email: "throw@x.io" } })
    expect(failed.status).toBe(500)
    expect(errorOf(failed)).toMatchObject({
      code: "projection_failed",
      message: "inline projection contact_emails failed: throw@x.io is not projected"
    })
    const listed = await call!("GET", "/v1/contacts")
    expect(listed.body.data.map((contact: { email: string }) => contact.email)).toEqual(["ada@x.io"])
    expect([...store.current().values()]).toEqual(["ada@x.io"])
  })
})
