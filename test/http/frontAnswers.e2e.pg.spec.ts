import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { note } from "../plugins/note/note.js"
import { testDatabase } from "../support/pg.js"
import { type Answer, errorOf, type Host, KEY_A, startHost } from "./client.js"

// Requests answered by the host's front (host/recordReads.ts, host/recordCreates.ts) against the same
// requests through HttpApi's endpoints (`frontAnswers: false`): two hosts on one database, the same
// records, the same keys. What the endpoint answers is the contract; the front must answer the same
// status, headers and bytes, and leave every other answer to the endpoint.

const READER = "key_front_reader_0123456789"
const API_KEYS = `ws_a:${KEY_A},ws_a:${READER}@contacts:read`

let front: Host
let endpoint: Host
const database = Effect.runSync(Scope.make())
beforeAll(async () => {
  const url = await Effect.runPromise(Scope.provide(testDatabase, database))
  const options = { storage: { postgres: url }, apiKeys: API_KEYS, recordTypes: [note] } as const
  // One after the other: both would run the plug-in's migration at once.
  front = await startHost(options)
  endpoint = await startHost({ ...options, frontAnswers: false })
})
afterAll(async () => {
  await Promise.all([front?.close(), endpoint?.close()])
  await Effect.runPromise(Scope.close(database, Exit.void))
})

const created = async (path: string, body: unknown): Promise<string> => {
  const answer = await front.call("POST", path, { body })
  expect(answer.status, answer.text).toBe(201)
  return answer.body.id
}

/** What a client can tell of an answer: all of it but the request's own id and the date. */
const seen = (answer: Answer) => ({
  status: answer.status,
  // The limit left depends on how many requests each host took and when: only its presence counts.
  headers: [...answer.headers.entries()].map(([name, value]) =>
    name === "x-request-id" || name === "date" || name === "ratelimit-remaining" ? [name] : [name, value]
  ),
  text: answer.text.replace(/"request_id":"[^"]*"/, "")
})

/** Both hosts' answers to the same GET. */
const both = async (path: string, key?: string | null) => {
  const options = key === undefined ? {} : { key }
  const [a, b] = [await front.call("GET", path, options), await endpoint.call("GET", path, options)]
  return { front: a, endpoint: b }
}

describe("GET of one record at the host's front", () => {
  it("answers every record type as its endpoint does, byte for byte", async () => {
    const company = await created("/v1/companies", { name: "Front Ltd", domain: "front.example" })
    const contact = await created("/v1/contacts", { email: "front@example.com", first_name: "Fron", company_ids: [company] })
    const pipeline = (await front.call("GET", "/v1/pipelines")).body.data[0].id
    const deal = await created("/v1/deals", { name: "Front deal", pipeline_id: pipeline, value: 1200, contact_ids: [contact] })
    const activity = await created("/v1/activities", { type: "note", subject: "Front", contact_ids: [contact], deal_ids: [deal] })
    const noteId = await created("/v1/notes", { title: "Front note" })
    for (const path of [
      `/v1/contacts/${contact}`,
      `/v1/companies/${company}`,
      `/v1/deals/${deal}`,
      `/v1/activities/${activity}`,
      `/v1/notes/${noteId}`
    ]) {
      const { front: a, endpoint: b } = await both(path)
      expect(a.status, `${path}: ${a.text}`).toBe(200)
      expect(seen(a), path).toEqual(seen(b))
      expect(a.headers.get("etag")).toBe('"1"')
    }
  })

  it("answers list pages as their endpoints do, parameters and cursors included", async () => {
    for (const i of [1, 2, 3]) await created("/v1/contacts", { email: `page${i}@example.com`, source: i === 2 ? "ads" : "webinar" })
    const filter = encodeURIComponent(JSON.stringify({ source: { $in: ["webinar", "ads"] } }))
    const paths = [
      "/v1/contacts",
      `/v1/contacts?filter=${filter}&sort=-created_at&limit=2`,
      "/v1/contacts?search=page&limit=1",
      "/v1/companies?limit=5",
      "/v1/deals?status=open&sort=value",
      "/v1/activities",
      "/v1/notes"
    ]
    for (const path of paths) {
      const { front: a, endpoint: b } = await both(path)
      expect(a.status, `${path}: ${a.text}`).toBe(200)
      expect(seen(a), path).toEqual(seen(b))
      expect(a.headers.get("etag")).toBeNull()
      // The next page by the front's cursor, from both: the cursor is the same contract.
      if (a.body.next_cursor !== null) {
        const next = await both(`${path}${path.includes("?") ? "&" : "?"}cursor=${a.body.next_cursor}`)
        expect(next.front.status).toBe(200)
        expect(seen(next.front)).toEqual(seen(next.endpoint))
      }
    }
  })

  it("leaves every other answer to the endpoint: missing, deleted, unknown key, lacking scope, Dealstream-Read-After", async () => {
    const gone = await created("/v1/contacts", { email: "gone@example.com" })
    expect((await front.call("DELETE", `/v1/contacts/${gone}`)).status).toBe(204)
    const pipeline = (await front.call("GET", "/v1/pipelines")).body.data[0].id
    const deal = await created("/v1/deals", { name: "Scoped deal", pipeline_id: pipeline })
    const cases: Array<[string, string | null | undefined, number]> = [
      ["/v1/contacts/con_0000000000000000000000000a", undefined, 404],
      [`/v1/contacts/${gone}`, undefined, 404],
      [`/v1/contacts/${gone}`, "key_nobody_knows_0123456789", 401],
      [`/v1/contacts/${gone}`, null, 401],
      [`/v1/deals/${deal}`, READER, 403]
    ]
    const lists: Array<[string, string | null | undefined, number]> = [
      ["/v1/contacts?limit=0", undefined, 400],
      ["/v1/contacts?limit=1&limit=2", undefined, 400],
      ["/v1/contacts?colour=red", undefined, 400],
      ["/v1/deals?status=closed", undefined, 400],
      ["/v1/contacts?cursor=not-a-cursor", undefined, 400],
      ["/v1/deals", READER, 403]
    ]
    for (const [path, key, status] of [...cases, ...lists]) {
      const { front: a, endpoint: b } = await both(path, key)
      expect(a.status, `${path} with ${key}: ${a.text}`).toBe(status)
      expect(errorOf(a).code).toBe(errorOf(b).code)
      expect(seen(a), path).toEqual(seen(b))
    }
    const position = (await front.call("PATCH", `/v1/deals/${deal}`, { body: { value: 5 } })).headers.get("dealstream-position")!
    const [a, b] = await Promise.all(
      [front, endpoint].map((host) => host.call("GET", `/v1/deals/${deal}`, { headers: { "dealstream-read-after": position } }))
    )
    expect(a!.body.value).toBe(5)
    expect(seen(a!)).toEqual(seen(b!))
    const malformed = await front.call("GET", `/v1/deals/${deal}`, { headers: { "dealstream-read-after": "nope" } })
    expect(malformed.status).toBe(400)
  })
})

/** Both hosts' answers to the same POST. */
const posted = async (path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> }) => ({
  front: await front.call("POST", path, options),
  endpoint: await endpoint.call("POST", path, options)
})

/** A created record's answer, with what differs between two creates (its id, times and place) set aside. */
const madeShape = (answer: Answer) => ({
  status: answer.status,
  headers: [...answer.headers.keys()].filter((name) => name !== "date").sort(),
  etag: answer.headers.get("etag"),
  location: answer.headers.get("location")?.replace(answer.body.id, "{id}"),
  body: Object.fromEntries(
    Object.entries(answer.body as Record<string, unknown>).map(([key, value]) =>
      key === "id" || key.endsWith("_at") ? [key, typeof value] : [key, value]
    )
  )
})

describe("POST of a record at the host's front", () => {
  it("creates every record type as its endpoint does", async () => {
    const pipeline = (await front.call("GET", "/v1/pipelines")).body.data[0].id
    const linked = await created("/v1/contacts", { email: "linked@example.com" })
    const bodies: Array<[string, (n: string) => unknown]> = [
      ["/v1/contacts", (n) => ({ email: `made.${n}@example.com`, first_name: "Made", phone: "+1 555 0100" })],
      ["/v1/companies", (n) => ({ name: `Made ${n}`, domain: `made-${n}.example` })],
      ["/v1/deals", () => ({ name: "Made deal", pipeline_id: pipeline, value: 250, currency: "EUR" })],
      ["/v1/activities", () => ({ type: "call", subject: "Made", contact_ids: [linked] })],
      ["/v1/notes", (n) => ({ title: "Made", slug: `made-${n}` })]
    ]
    for (const [path, body] of bodies) {
      const a = await front.call("POST", path, { body: body("front") })
      const b = await endpoint.call("POST", path, { body: body("endpoint") })
      expect(a.status, `${path}: ${a.text}`).toBe(201)
      const [shapeA, shapeB] = [madeShape(a), madeShape(b)]
      expect({ ...shapeA, body: { ...shapeA.body, email: null, name: null, domain: null, slug: null } }).toEqual({
        ...shapeB,
        body: { ...shapeB.body, email: null, name: null, domain: null, slug: null }
      })
      expect(a.headers.get("dealstream-position")).toMatch(/^[0-9A-F]{16}$/)
      // What the front stored is what the endpoint's host reads back.
      const read = await endpoint.call("GET", a.headers.get("location")!, {
        headers: { "dealstream-read-after": a.headers.get("dealstream-position")! }
      })
      expect(read.text).toBe(a.text)
    }
  })

  it("answers a refused body as its endpoint does, and leaves a keyed create to it", async () => {
    await front.call("POST", "/v1/contacts", { body: { email: "taken@example.com" } })
    const deep = JSON.stringify({ email: "deep@example.com", first_name: JSON.parse(`${"[".repeat(70)}${"]".repeat(70)}`) })
    const cases: Array<[string, { body?: unknown; raw?: string; headers?: Record<string, string> }, number]> = [
      ["missing email", { body: { first_name: "No" } }, 400],
      ["unknown field", { body: { email: "x@example.com", colour: "red" } }, 400],
      ["taken email", { body: { email: "TAKEN@example.com" } }, 409],
      ["no body", { headers: { "content-type": "application/json" } }, 400],
      ["malformed JSON", { raw: '{"email": ', headers: { "content-type": "application/json" } }, 400],
      ["nested too deep", { raw: deep, headers: { "content-type": "application/json" } }, 400],
      ["not JSON", { raw: "email=x", headers: { "content-type": "application/x-www-form-urlencoded" } }, 415]
    ]
    for (const [what, options, status] of cases) {
      const { front: a, endpoint: b } = await posted("/v1/contacts", options)
      expect(a.status, `${what}: ${a.text}`).toBe(status)
      expect(seen(a), what).toEqual(seen(b))
    }
    const { front: queried, endpoint: queriedThere } = await posted("/v1/contacts?x=1", { body: { email: "q@example.com" } })
    expect(queried.status).toBe(400)
    expect(seen(queried)).toEqual(seen(queriedThere))
    const keyed = { body: { email: "keyed@example.com" }, headers: { "idempotency-key": "front-keyed-1" } }
    const first = await front.call("POST", "/v1/contacts", keyed)
    const again = await front.call("POST", "/v1/contacts", keyed)
    expect([first.status, again.status, again.headers.get("idempotent-replayed")]).toEqual([201, 201, "true"])
    expect(again.body.id).toBe(first.body.id)
  })
})

describe("limits at the host's front", () => {
  it("charges a request once, whichever answers it: a 404 the endpoint answers after the front read", async () => {
    const limited = await startHost({ rateLimit: 0.01, rateBurst: 3 })
    try {
      const known = (await limited.call("POST", "/v1/contacts", { body: { email: "limit@example.com" } })).body.id
      // The POST (an endpoint's) took the first token; each GET below takes one from the same bucket,
      // the 404 (read at the front, then answered by the endpoint) too, never two. A host whose front
      // and endpoints each had a gate of their own failed here (the GETs read 2 and 1).
      const answers = [
        await limited.call("GET", "/v1/contacts/con_0000000000000000000000000b"),
        await limited.call("GET", `/v1/contacts/${known}`)
      ]
      expect(answers.map((answer) => [answer.status, answer.headers.get("ratelimit-remaining")])).toEqual([
        [404, "1"],
        [200, "0"]
      ])
      const refused = await limited.call("GET", `/v1/contacts/${known}`)
      expect(refused.status).toBe(429)
      expect(errorOf(refused).code).toBe("rate_limited")
      expect(refused.headers.get("retry-after")).not.toBeNull()
    } finally {
      await limited.close()
    }
  })
})
