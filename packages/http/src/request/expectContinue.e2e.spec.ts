import { HttpServer } from "effect/http"
import { connect, type Socket } from "node:net"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HostLive, MemoryEngineLive } from "../host/HostLive.js"

// @effect/platform-node 4 takes Node's `checkContinue` over, so Node no longer answers
// `Expect: 100-continue` by itself; a client waiting for `100 Continue` before it sends its body
// got nothing (the Effect 3 host answered at once). Over a real socket.

const KEY = "key_expect_continue_0123456789"
const scope = Effect.runSync(Scope.make())
let port = 0

beforeAll(async () => {
  const host = HostLive({
    port: 0,
    host: "127.0.0.1",
    apiKeys: [{ workspaceId: "ws_a", key: KEY }],
    rateLimit: 100,
    rateBurst: 100,
    log: false
  })
  const context = await Effect.runPromise(Layer.buildWithScope(host.pipe(Layer.provide(MemoryEngineLive())), scope))
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  port = address.port
})

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

/** A connection that collects what the host sends, and resolves when `text` has arrived. */
const open = () => {
  const socket: Socket = connect(port, "127.0.0.1")
  let received = ""
  const waiters: Array<{ readonly text: string; readonly done: () => void }> = []
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1")
    for (const waiter of waiters.filter((w) => received.includes(w.text))) waiter.done()
  })
  return {
    socket,
    received: () => received,
    arrived: (text: string) => new Promise<void>((done) => (received.includes(text) ? done() : waiters.push({ text, done }))),
    closed: new Promise<void>((done) => socket.on("close", () => done()))
  }
}

const head = (body: string, extra = "") =>
  `POST /v1/contacts HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${KEY}\r\ncontent-type: application/json\r\n` +
  `content-length: ${Buffer.byteLength(body)}\r\nexpect: 100-continue\r\nconnection: close\r\n${extra}\r\n`

describe("Expect: 100-continue", () => {
  it("is answered with 100 Continue once the body is wanted, and the request then goes through", async () => {
    const body = JSON.stringify({ email: "expect@example.com" })
    const connection = open()
    connection.socket.write(head(body))
    await connection.arrived("HTTP/1.1 100 Continue\r\n\r\n")
    connection.socket.write(body)
    await connection.closed
    const statuses = connection
      .received()
      .split("\r\n")
      .filter((line) => line.startsWith("HTTP/1.1 "))
    expect(statuses).toEqual(["HTTP/1.1 100 Continue", "HTTP/1.1 201 Created"])
  }, 10_000)

  it("is not answered with 100 Continue when the body is refused unread: the final answer comes at once", async () => {
    const connection = open()
    connection.socket.write(head("x".repeat(10), "").replace(/content-length: \d+/, "content-length: 2000000"))
    await connection.closed
    const statuses = connection
      .received()
      .split("\r\n")
      .filter((line) => line.startsWith("HTTP/1.1 "))
    expect(statuses).toEqual(["HTTP/1.1 413 Payload Too Large"])
  }, 10_000)
})
