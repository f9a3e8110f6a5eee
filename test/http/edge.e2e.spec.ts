import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, type Host, KEY_A, startHost } from "./client.js"

// HTTP edges only (bodies, 415/413, auth headers, routing, request ids): they are decided before
// the engine runs, so memory storage is enough; the API suites run on PostgreSQL too.
let host: Host
beforeAll(async () => {
  host = await startHost()
})
afterAll(() => host.close())

/** Sends a body in chunks without Content-Length, so only the limit while reading can catch it. */
const postChunked = (path: string, chunks: number, chunkBytes: number) =>
  new Promise<{ status: number; body: any }>((resolve, reject) => {
    const url = new URL(`${host.url}${path}`)
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json", "transfer-encoding": "chunked" }
      },
      (res) => {
        let text = ""
        res.on("data", (chunk) => (text += chunk))
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
      }
    )
    // The host may answer and close before the whole body is sent.
    req.on("error", reject)
    req.write('{"email":"big@example.com","title":"')
    const filler = "x".repeat(chunkBytes)
    let sent = 0
    const pump = () => {
      while (sent < chunks) {
        sent++
        if (!req.write(filler)) return req.once("drain", pump)
      }
      req.end('"}')
    }
    pump()
  })

describe("request bodies", () => {
  it("keeps idle connections longer than its clients do, and says so (Keep-Alive: timeout=65)", async () => {
    // A client reusing a connection the host had just closed got a reset (Node's 5 s default; a
    // busy test process hit it). Clients take the hint and close their side first.
    const answer = await host.call("GET", "/v1/openapi.json", { key: null })
    expect(answer.status).toBe(200)
    expect(answer.headers.get("keep-alive")).toBe("timeout=65")
  })

  it("malformed JSON is 400 invalid_json", async () => {
    const answer = await host.call("POST", "/v1/contacts", { raw: '{"email": ', headers: { "content-type": "application/json" } })
    expect(answer.status).toBe(400)
    expect(errorOf(answer).code).toBe("invalid_json")
  })

  it("a body that is not application/json is 415; a charset parameter is fine", async () => {
    const text = await host.call("POST", "/v1/contacts", { raw: '{"email":"a@example.com"}', headers: { "content-type": "text/plain" } })
    expect(text.status).toBe(415)
    expect(errorOf(text).code).toBe("unsupported_media_type")

    const none = await host.call("PATCH", "/v1/contacts/con_x", { raw: "{}", headers: { "content-type": "" } })
    expect(none.status).toBe(415)

    const charset = await host.call("POST", "/v1/contacts", {
      raw: '{"email":"charset@example.com"}',
      headers: { "content-type": "application/json; charset=utf-8" }
    })
    expect(charset.status).toBe(201)
  })

  it("a body over 1 MiB is 413, by Content-Length and while reading a chunked body", async () => {
    const big = JSON.stringify({ email: "big@example.com", title: "x".repeat(1024 * 1024) })
    const declared = await host.call("POST", "/v1/contacts", { raw: big, headers: { "content-type": "application/json" } })
    expect(declared.status).toBe(413)
    expect(errorOf(declared).code).toBe("payload_too_large")

    const chunked = await postChunked("/v1/contacts", 80, 16 * 1024)
    expect(chunked.status).toBe(413)
    expect(chunked.body.error.code).toBe("payload_too_large")

    const list = await host.call("GET", "/v1/contacts?search=big")
    expect(list.body.data).toEqual([])
  })

  it("a body just under 1 MiB is read (and judged by the engine)", async () => {
    const body = JSON.stringify({ email: "under@example.com", title: "x".repeat(1000 * 1000) })
    const answer = await host.call("POST", "/v1/contacts", { raw: body, headers: { "content-type": "application/json" } })
    expect(answer.status).not.toBe(413)
  })
})

describe("query parameters", () => {
  it("an endpoint that takes none rejects them instead of ignoring them, and changes nothing", async () => {
    const answer = await host.call("POST", "/v1/contacts?dry_run=1", { body: { email: "dry@example.com" } })
    expect(answer.status).toBe(400)
    expect(errorOf(answer).details[0]?.path).toBe("dry_run")
    expect((await host.call("GET", "/v1/contacts?search=dry")).body.data).toEqual([])
  })
})

describe("authentication", () => {
  it("a missing header, another scheme and an unknown key are 401 with WWW-Authenticate", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Token ${KEY_A}` },
      { authorization: `Basic ${KEY_A}` },
      { authorization: "Bearer nope" },
      { authorization: "Bearer" }
    ]) {
      const answer = await host.call("GET", "/v1/contacts", { key: null, headers })
      expect(answer.status, JSON.stringify(headers)).toBe(401)
      expect(errorOf(answer).code).toBe("unauthorized")
      expect(answer.headers.get("www-authenticate")).toBe("Bearer")
      expect(answer.headers.get("ratelimit-limit")).toBeNull()
    }
  })

  it("authentication comes before body checks", async () => {
    const answer = await host.call("POST", "/v1/contacts", { key: null, raw: "not json", headers: { "content-type": "text/plain" } })
    expect(answer.status).toBe(401)
  })

  it("probes and documentation need no key", async () => {
    for (const path of ["/healthz", "/readyz", "/v1/openapi.json", "/docs"]) {
      expect((await host.call("GET", path, { key: null })).status, path).toBe(200)
    }
  })
})

describe("routing and request ids", () => {
  it("an unknown route is 404 not_found in the error shape", async () => {
    for (const [method, path] of [
      ["GET", "/v1/leads"],
      ["GET", "/nothing"],
      ["DELETE", "/v1/pipelines/pipe_x"]
    ] as const) {
      const answer = await host.call(method, path)
      expect(answer.status, `${method} ${path}`).toBe(404)
      expect(errorOf(answer).code).toBe("not_found")
    }
  })

  it("echoes a sent X-Request-Id on success and in error bodies", async () => {
    const ok = await host.call("GET", "/v1/contacts", { headers: { "x-request-id": "trace-123 abc" } })
    expect(ok.headers.get("x-request-id")).toBe("trace-123 abc")
    const failed = await host.call("GET", "/v1/contacts/con_missing", { headers: { "x-request-id": "trace-456" } })
    expect(errorOf(failed).request_id).toBe("trace-456")
  })

  it("generates req_ ids when none or an unacceptable one is sent", async () => {
    const generated = await host.call("GET", "/healthz")
    expect(generated.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{26}$/)
    const tooLong = await host.call("GET", "/healthz", { headers: { "x-request-id": "x".repeat(201) } })
    expect(tooLong.headers.get("x-request-id")).toMatch(/^req_/)
    const twoHundred = await host.call("GET", "/healthz", { headers: { "x-request-id": "y".repeat(200) } })
    expect(twoHundred.headers.get("x-request-id")).toBe("y".repeat(200))
    const a = (await host.call("GET", "/healthz")).headers.get("x-request-id")
    const b = (await host.call("GET", "/healthz")).headers.get("x-request-id")
    expect(a).not.toBe(b)
  })
})
