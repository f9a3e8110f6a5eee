import { DeliveryQueue, EngineLive, IdsLive, Storage, WebhookConfig, WebhookTransport, WebhookTransportUnavailable } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { HttpServer } from "effect/http"
import { connect } from "node:net"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { HostLive } from "./HostLive.js"

// HttpApi 4 answers a failure inside the route, before the host's router middleware sees it; the
// error body, the request id and the log line of a 500 (with the cause that only the operator may
// see) and of a request whose client went away (499) are wired up anew for it (ErrorBodies,
// RequestInfo.internal). Over a real socket, with the host's JSON log lines read from stdout.

const KEY = "key_request_log_0123456789"
const SECRET = "password=hunter2"

/** Memory storage whose document reads die, as a bug in storage would. */
const dyingReads = Layer.effectContext(
  Effect.gen(function* () {
    const storage = yield* Storage
    const die = () => Effect.die(new Error(`${SECRET} at /srv/app/storage.js:42`))
    const dying = { ...storage, getDocument: die, readRecord: die }
    return Context.make(Storage, dying).pipe(Context.add(DeliveryQueue, yield* DeliveryQueue))
  })
).pipe(Layer.provide(MemoryStorage.layer))

const engine = EngineLive.pipe(
  Layer.provideMerge(IdsLive),
  Layer.provideMerge(dyingReads),
  Layer.provideMerge(WebhookConfig.layer()),
  Layer.provideMerge(Layer.succeed(WebhookTransport, WebhookTransportUnavailable))
)

const written: Array<string> = []
const scope = Effect.runSync(Scope.make())
let port = 0

beforeAll(async () => {
  // Every line the host logs, kept from the test's own output.
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    written.push(String(chunk))
    return true
  })
  const host = HostLive({
    port: 0,
    host: "127.0.0.1",
    apiKeys: [{ workspaceId: "ws_a", key: KEY }],
    rateLimit: 100,
    rateBurst: 100,
    log: true
  })
  const context = await Effect.runPromise(Layer.buildWithScope(host.pipe(Layer.provide(engine)), scope))
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  port = address.port
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  vi.restoreAllMocks()
})

/** The JSON log line of a request, once the host has written it. */
const logLineOf = (requestId: string) =>
  vi.waitFor(() => {
    const line = written
      .flatMap((chunk) => chunk.split("\n"))
      .filter((text) => text.startsWith("{"))
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry["request_id"] === requestId)
    if (line === undefined) throw new Error(`no log line for ${requestId} yet`)
    return line
  })

describe("the request log and error body of what fails inside an endpoint", () => {
  it("a defect is a bare 500 with the request's id; its cause is in the log line only", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/v1/contacts/con_x?expand=deals`, {
      headers: { authorization: `Bearer ${KEY}`, "x-request-id": "defect-1" }
    })
    const text = await response.text()
    expect(response.status).toBe(500)
    expect(response.headers.get("x-request-id")).toBe("defect-1")
    expect(JSON.parse(text)).toEqual({ error: { code: "internal_error", message: "internal error", details: [], request_id: "defect-1" } })
    expect(text).not.toContain("hunter2")

    const line = await logLineOf("defect-1")
    // The query string stays out of the log (it may carry personal data).
    expect(line).toMatchObject({ level: "error", method: "GET", path: "/v1/contacts/con_x", status: 500, workspace_id: "ws_a" })
    expect(line["error"]).toEqual(expect.stringContaining(SECRET))
  })

  it("a failure the endpoint declares is our error body, not HttpApi's own encoding of the error", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/v1/contacts/con_x`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${KEY}`, "if-match": "yesterday", "x-request-id": "declared-1" },
      body: "{}"
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: {
        code: "validation_error",
        message: 'If-Match must be an ETag from a previous response ("<version>") or *',
        details: [{ path: "If-Match", message: 'must be an ETag from a previous response ("<version>") or *' }],
        request_id: "declared-1"
      }
    })
    const line = await logLineOf("declared-1")
    expect(line).toMatchObject({ level: "info", method: "PATCH", status: 400, workspace_id: "ws_a" })
    expect(line["error"]).toBeUndefined()
  })

  it("a request whose client went away is logged as 499, with no answer written", async () => {
    const socket = connect(port, "127.0.0.1")
    let received = ""
    const reading = new Promise<void>((wanted) =>
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1")
        if (received.includes("100 Continue")) wanted()
      })
    )
    // Expect: 100-continue, so that the host says when it reads the body: the request is
    // authenticated by then, and waits for bytes that never come.
    socket.write(
      "POST /v1/contacts HTTP/1.1\r\nhost: x\r\nx-request-id: gone-1\r\nexpect: 100-continue\r\n" +
        `authorization: Bearer ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n`
    )
    await reading
    socket.destroy()
    const line = await logLineOf("gone-1")
    expect(line).toMatchObject({ level: "info", method: "POST", path: "/v1/contacts", status: 499, workspace_id: "ws_a" })
    expect(line["error"]).toBeUndefined()
    expect(received.split("\r\n").filter((text) => text.startsWith("HTTP/1.1 "))).toEqual(["HTTP/1.1 100 Continue"])
  })
})
