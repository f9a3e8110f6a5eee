import type { TransportError, WebhookRequest } from "@dealstream/core"
import { Effect, Exit, Fiber, Result, Scope } from "effect"
import { lookup } from "node:dns"
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import * as NodeWebhookTransport from "../../packages/http/src/webhooks/NodeWebhookTransport.js"
import { publicOnlyLookup } from "../../packages/http/src/webhooks/publicAddresses.js"
import { type Receiver, startReceiver } from "./receiver.js"

// The transport over real sockets against a real receiver on 127.0.0.1.
const scope = Effect.runSync(Scope.make())
const transport = Effect.runSync(Scope.provide(NodeWebhookTransport.make, scope))
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const request = (url: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url,
  headers: { "content-type": "application/json", "webhook-id": "evt_1" },
  body: JSON.stringify({ hello: "wörld" }),
  timeoutMillis: 2_000,
  allowInsecure: true,
  ...overrides
})

// The error as a plain record: toEqual does not see into Effect's errors (iterable, with a message
// that is not an enumerable property), so TransportErrors of any two messages compare equal.
const post = (req: WebhookRequest) =>
  Effect.runPromise(
    Effect.result(transport.post(req)).pipe(
      Effect.map(Result.mapError((error: TransportError) => ({ _tag: error._tag, message: error.message })))
    )
  )
const transportError = (message: string) => Result.fail({ _tag: "TransportError", message })

let receiver: Receiver
beforeAll(async () => {
  receiver = await startReceiver()
})
afterAll(() => receiver.close())

const fresh = async () => {
  const own = await startReceiver()
  onTestFinished(() => own.close())
  return own
}

describe("NodeWebhookTransport.post", () => {
  it("POSTs the exact bytes with the given headers and answers the status", async () => {
    const own = await fresh()
    own.script({ status: 204 })
    const answer = await post(request(`${own.url}/hook?x=1`))
    expect(answer).toEqual(Result.succeed({ status: 204, retryAfterSeconds: null }))
    expect(own.received).toHaveLength(1)
    const got = own.received[0]!
    expect(got.method).toBe("POST")
    expect(got.path).toBe("/hook?x=1")
    expect(got.rawBody.toString("utf8")).toBe('{"hello":"wörld"}')
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength('{"hello":"wörld"}')))
    expect(got.headers["webhook-id"]).toBe("evt_1")
  })

  it("does not follow redirects: a 3xx is the answer", async () => {
    const own = await fresh()
    own.script({ status: 302, headers: { location: `${own.url}/elsewhere` } })
    const answer = await post(request(`${own.url}/hook`))
    expect(answer).toEqual(Result.succeed({ status: 302, retryAfterSeconds: null }))
    // A follower would have asked for /elsewhere before answering; the next request is the marker.
    own.script({ status: 200 })
    await post(request(`${own.url}/marker`))
    expect(own.received.map((r) => r.path)).toEqual(["/hook", "/marker"])
  })

  it("reads Retry-After as delta-seconds or an HTTP date", async () => {
    const own = await fresh()
    const inNinety = new Date(Math.ceil(Date.now() / 1000) * 1000 + 90_000).toUTCString()
    own.script({ status: 429, headers: { "retry-after": "7" } }, { status: 503, headers: { "retry-after": inNinety } })
    expect(await post(request(own.url))).toEqual(Result.succeed({ status: 429, retryAfterSeconds: 7 }))
    const sent = Date.now()
    const dated = await post(request(own.url))
    const answered = Date.now()
    expect(Result.isSuccess(dated) && dated.success.status).toBe(503)
    const seconds = Result.isSuccess(dated) ? dated.success.retryAfterSeconds : null
    // Whole seconds from the moment the answer was read, which lies between the two readings above.
    const until = Date.parse(inNinety)
    expect(seconds).toBeGreaterThanOrEqual(Math.ceil((until - answered) / 1000))
    expect(seconds).toBeLessThanOrEqual(Math.ceil((until - sent) / 1000))
  })

  it("reads only a little of an endless answer, then closes the connection", async () => {
    const own = await fresh()
    // 64 KiB sent, the answer never ends: only a reader that stops early is done at all, since the
    // timeout (which would also end it, with the same answer) lies beyond the test's own time limit.
    own.script({ status: 200, body: "x".repeat(64 * 1024), keepOpen: true })
    expect(await post(request(own.url, { timeoutMillis: 600_000 }))).toEqual(Result.succeed({ status: 200, retryAfterSeconds: null }))
    await own.waitFor(() => own.aborted.length === 1, "the connection to be closed", 20_000)
  })

  it("counts a status that arrived in time even if the body is still coming at the timeout", async () => {
    const own = await fresh()
    own.script({ status: 202, body: "partial", keepOpen: true })
    // The timeout must fire, after the status has come: 2 s is long for a status from this machine
    // to arrive even under load, and short enough for the test.
    expect(await post(request(own.url, { timeoutMillis: 2_000 }))).toEqual(Result.succeed({ status: 202, retryAfterSeconds: null }))
  })

  it("gives up after the timeout and closes the connection", async () => {
    const own = await fresh()
    own.script("hold")
    const answer = await post(request(own.url, { timeoutMillis: 300 }))
    expect(answer).toEqual(transportError("timed out after 300 ms"))
    await own.waitFor(() => own.aborted.length === 1, "the held request to be aborted", 20_000)
  })

  it("aborts the request when the calling fiber is interrupted", async () => {
    const own = await fresh()
    own.script("hold")
    // A timeout far beyond the wait below: the connection closes because of the interruption.
    const fiber = Effect.runFork(transport.post(request(own.url, { timeoutMillis: 600_000 })))
    await own.waitFor((r) => r.length === 1, "the request")
    await Effect.runPromise(Fiber.interrupt(fiber))
    await own.waitFor(() => own.aborted.length === 1, "the request to be aborted", 20_000)
  })

  it("reports a refused connection as a TransportError", async () => {
    const own = await startReceiver()
    const url = own.url
    await own.close()
    expect(await post(request(url))).toEqual(transportError("connection refused"))
  })

  describe("without allowInsecure", () => {
    it("refuses a name that resolves to loopback at connect time: the receiver sees no connection", async () => {
      const own = await fresh()
      const port = new URL(own.url).port
      const answer = await post(request(`https://localhost:${port}/hook`, { allowInsecure: false }))
      expect(answer).toEqual(transportError("refused: the target resolves to a non-public address"))
      // The same target with the switch on is reached (over TLS against a plain server: it fails,
      // but only after connecting), so the refusal above came from the address check.
      await post(request(`https://localhost:${port}/hook`, { allowInsecure: true }))
      expect(own.connections()).toBe(1)
      expect(own.received).toHaveLength(0)
    })

    it("refuses loopback, private and link-local IP literals", async () => {
      const own = await fresh()
      const port = new URL(own.url).port
      for (const host of ["127.0.0.1", "[::1]", "10.0.0.1", "169.254.169.254", "[::ffff:127.0.0.1]"]) {
        const answer = await post(request(`https://${host}:${port}/`, { allowInsecure: false }))
        expect(answer).toEqual(transportError("refused: the target is not a public address"))
      }
      expect(own.connections()).toBe(0)
    })

    it("refuses http:// targets", async () => {
      const answer = await post(request(receiver.url, { allowInsecure: false }))
      expect(answer).toEqual(transportError("refused: only https targets are allowed"))
      expect(receiver.connections()).toBe(0)
    })
  })
})

describe("publicOnlyLookup", () => {
  const run = (hostname: string, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      publicOnlyLookup(hostname, { all }, (error, address) => resolve({ error, address }))
    )

  it("fails a name with any non-public address, in both callback shapes", async () => {
    for (const all of [true, false]) {
      const { error } = await run("localhost", all)
      expect(error?.code).toBe("ERR_NON_PUBLIC_TARGET")
    }
  })

  it("passes resolver errors through", async () => {
    const { error } = await run("nothing.invalid", true)
    expect(error?.code).toBe("ENOTFOUND")
    // Sanity: the resolver itself sees localhost, so the refusal above is the check's.
    await new Promise<void>((resolve) =>
      lookup("localhost", (e) => {
        expect(e).toBeNull()
        resolve()
      })
    )
  })
})

describe("NodeWebhookTransport.checkTarget", () => {
  const check = (url: string, allowInsecure = false) => Effect.runPromise(Effect.result(transport.checkTarget(url, allowInsecure)))

  it("refuses names and literals of non-public addresses, and names that do not resolve, at url", async () => {
    for (const url of ["https://localhost/", "https://127.0.0.1/", "https://[::1]/", "https://10.0.0.1/", "https://169.254.169.254/"]) {
      const result = await check(url)
      expect(Result.isFailure(result) && result.failure.details).toEqual([{ path: "url", message: "resolves to a private address" }])
    }
    const unresolved = await check("https://nothing.invalid/")
    expect(Result.isFailure(unresolved) && unresolved.failure.details).toEqual([{ path: "url", message: "does not resolve" }])
  })

  it("accepts a public address, and anything when insecure targets are allowed", async () => {
    expect(await check("https://93.184.215.14/hook")).toEqual(Result.succeed(undefined))
    expect(await check("https://[2606:4700::1111]/")).toEqual(Result.succeed(undefined))
    expect(await check("http://localhost:1/", true)).toEqual(Result.succeed(undefined))
  })
})
