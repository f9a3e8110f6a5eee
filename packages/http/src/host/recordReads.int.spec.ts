import { Engine, RecordTypes } from "@dealstream/core"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ApiKeys from "../auth/ApiKeys.js"
import { Gate, GateLive } from "../auth/Gate.js"
import * as RateLimiter from "../rateLimit/RateLimiter.js"
import { attachedRequestInfo } from "../request/RequestInfo.js"
import { divertRequests } from "./divertRequests.js"
import { MemoryEngineLive } from "./HostLive.js"
import { frontRecordsOf } from "./frontRecords.js"
import { recordCreates } from "./recordCreates.js"
import { recordReads } from "./recordReads.js"
import { handedOn, installRequestFront } from "./requestFront.js"

// Which requests the front answers and which it hands to the endpoint, over a real socket: the
// endpoint here is a plain listener that says so (599), behind the diversion as Effect's handler is.

const KEY = "key_front_0123456789"
const scope = Effect.runSync(Scope.make())
let server: Server
let base: string
let contactId: string
const screenedAtEndpoint: Array<string | null> = []

beforeAll(async () => {
  const layer = GateLive.pipe(
    Layer.provideMerge(Layer.mergeAll(ApiKeys.layer([{ workspaceId: "ws_a", key: KEY }]), RateLimiter.layer({ rate: 1000, burst: 1000 }))),
    Layer.provideMerge(MemoryEngineLive()),
    Layer.provide(Layer.succeed(RecordTypes, []))
  )
  const context = await Effect.runPromise(Scope.provide(Layer.build(layer), scope))
  const engine = Context.get(context, Engine)
  const created = await Effect.runPromise(
    engine.contacts.create({ workspaceId: "ws_a", requestId: null, actor: null }, { email: "front@example.com" })
  )
  contactId = String(created.data["id"])
  server = createServer()
  installRequestFront(server, { log: false, newRequestId: () => "req_test" })
  const gate = Context.get(context, Gate)
  const records = frontRecordsOf(engine, [])
  const reads = recordReads(gate, records, context as Context.Context<never>)
  const creates = recordCreates(gate, records, context as Context.Context<never>)
  divertRequests(server, handedOn).take = (request, response, pass) => reads(request, response, pass) || creates(request, response, pass)
  server.on("request", (request: IncomingMessage, response) => {
    screenedAtEndpoint.push(attachedRequestInfo(request)?.screened?._tag ?? null)
    response.writeHead(599).end("endpoint")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${KEY}`, ...headers } })

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers }
  })

describe("the front's record reads and creates", () => {
  it("answers a GET of a live record itself, with the endpoint's headers", async () => {
    const answer = await get(`/v1/contacts/${contactId}`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get("etag")).toBe('"1"')
    expect(answer.headers.get("content-type")).toBe("application/json")
    expect(answer.headers.get("ratelimit-remaining")).not.toBeNull()
    expect(answer.headers.get("x-request-id")).toBe("req_test")
    expect(((await answer.json()) as { email: string }).email).toBe("front@example.com")
  })

  it("answers a list page itself", async () => {
    const answer = await get("/v1/contacts?limit=1&sort=-created_at")
    expect(answer.status).toBe(200)
    expect(answer.headers.get("etag")).toBeNull()
    const page = (await answer.json()) as { data: Array<{ id: string }>; next_cursor: string | null }
    expect(page.data.map((contact) => contact.id)).toEqual([contactId])
  })

  it("answers a create itself, its refusals too once it has read the body", async () => {
    const made = await post("/v1/contacts", JSON.stringify({ email: "made@example.com" }))
    expect(made.status).toBe(201)
    const id = ((await made.json()) as { id: string }).id
    expect(made.headers.get("location")).toBe(`/v1/contacts/${id}`)
    expect(made.headers.get("dealstream-position")).toMatch(/^[0-9A-F]{16}$/)
    expect(made.headers.get("x-request-id")).toBe("req_test")
    const malformed = await post("/v1/contacts", '{"email":')
    expect(malformed.status).toBe(400)
    expect(malformed.headers.get("x-request-id")).toBe("req_test")
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("invalid_json")
  })

  it("hands the endpoint a create it would refuse unread, or that is keyed", async () => {
    screenedAtEndpoint.length = 0
    for (const [path, headers] of [
      ["/v1/contacts", { "idempotency-key": "k1" }],
      ["/v1/contacts", { "content-type": "text/plain" }],
      ["/v1/contacts?x=1", {}],
      ["/v1/contacts/con_x", {}],
      ["/v1/pipelines", {}]
    ] as const) {
      const answer = await post(path, JSON.stringify({ email: "handed@example.com" }), headers)
      expect(answer.status, path).toBe(599)
      expect(answer.headers.get("x-request-id"), path).toBe("req_test")
    }
    expect(screenedAtEndpoint).toEqual([null, null, null, null, null])
  })

  it("hands the endpoint what it does not answer, with the gate's answer when it screened it", async () => {
    screenedAtEndpoint.length = 0
    const handed: Array<[string, Record<string, string>?]> = [
      ["/v1/contacts/con_0000000000000000000000000a"],
      [`/v1/contacts/${contactId}`, { authorization: "Bearer key_unknown_0123456789" }],
      [`/v1/contacts/${contactId}?expand=deals`],
      [`/v1/contacts/${contactId}`, { "dealstream-read-after": "0000000000000001" }],
      [`/v1/contacts/${contactId.toUpperCase()}`],
      [`/v1/contacts/${contactId}/history`],
      ["/v1/contacts/export"],
      [`/v1/companies/${contactId}`],
      ["/v1/contacts?limit=0"],
      ["/v1/contacts?limit=1&limit=2"],
      ["/v1/pipelines"]
    ]
    for (const [path, headers] of handed) {
      const answer = await get(path, headers)
      expect(answer.status, path).toBe(599)
      // Its id given as it was handed on, whether at once or after the front read and failed.
      expect(answer.headers.get("x-request-id"), path).toBe("req_test")
      expect(await answer.text()).toBe("endpoint")
    }
    // The missing record and the page of limit 0 were admitted and read; the unknown key needs
    // storage; the rest were not screened.
    expect(screenedAtEndpoint).toEqual(["Admitted", "LookUp", null, null, null, null, null, null, "Admitted", null, null])
  })
})
