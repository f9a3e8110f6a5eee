import { describe, expect, it } from "vitest"
import { type FeedRead, recordedUntilMarker } from "../support/feedPolling.js"
import { errorOf, hostFor, STORAGES } from "./client.js"

/**
 * POST /v1/contacts/batch and /v1/deals/batch through a real host, on each storage: each
 * operation answered as its single request would have been; atomic batches all or nothing; one
 * Idempotency-Key for the batch; what the batch refuses as a whole changes nothing.
 */
describe.each(STORAGES)("batch writes on %s storage", { timeout: 120_000 }, (storage) => {
  const host = hostFor(storage)
  let n = 0
  const email = (name: string) => `${name}.${Date.now().toString(36)}${n++}@example.com`

  const ok = async (method: string, path: string, body?: unknown) => {
    const answer = await host.call(method, path, body === undefined ? {} : { body })
    expect(answer.status, answer.text).toBeLessThan(300)
    return answer.body
  }
  const batch = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const answer = await host.call("POST", path, { body, headers })
    expect(answer.status, answer.text).toBe(200)
    return answer.body.results as Array<Record<string, any>>
  }
  // The feed holds an event back while an older transaction runs (other tests' on this server
  // too): an empty read does not show that nothing was recorded, nor does a read right after a
  // write show all it recorded. So what was recorded is read up to a marker written afterwards,
  // which every acknowledged write comes before.
  const read: FeedRead<Record<string, any>> = async (params) => ok("GET", `/v1/events?${new URLSearchParams(params)}`)
  const mark = async () => (await ok("POST", "/v1/contacts", { email: email("marker") })).id as string
  /** What the feed recorded after `cursor` (null: from its start), and a cursor past it all. */
  const recorded = (cursor: string | null) => recordedUntilMarker(read, cursor, mark)
  const feedCursor = async () => (await recorded(null)).cursor
  const eventsSince = async (cursor: string) => (await recorded(cursor)).events

  it("answers each operation as its single request would, in request order", async () => {
    const existing = await ok("POST", "/v1/contacts", { email: email("existing"), first_name: "Old" })
    const taken = email("taken")
    await ok("POST", "/v1/contacts", { email: taken })
    const upserted = await ok("POST", "/v1/contacts", { email: email("upserted"), first_name: "Before" })
    const fresh = email("fresh")
    const since = await feedCursor()

    const results = await batch("/v1/contacts/batch", {
      operations: [
        { op: "create", data: { email: fresh, first_name: "New" } },
        { op: "create", data: { email: "not an email" } },
        { op: "update", id: existing.id, data: { title: "CEO" } },
        { op: "update", id: "con_missing", data: { title: "x" } },
        { op: "upsert", match: { email: upserted.email.toUpperCase() }, data: { first_name: "After" } },
        { op: "upsert", match: { email: email("upsert.new") }, data: { last_name: "Made" } },
        { op: "create", data: { email: taken } }
      ]
    })
    expect(results.map((r) => [r.index, r.status])).toEqual([
      [0, 201],
      [1, 400],
      [2, 200],
      [3, 404],
      [4, 200],
      [5, 201],
      [6, 409]
    ])
    // The records as the GET shows them, the errors as the single requests answer them.
    expect(results[0]!.data).toEqual(await ok("GET", `/v1/contacts/${results[0]!.data.id}`))
    expect(results[2]!.data).toEqual({ ...(await ok("GET", `/v1/contacts/${existing.id}`)) })
    expect(results[2]!.data.title).toBe("CEO")
    expect(results[4]!.data).toMatchObject({ id: upserted.id, first_name: "After", email: upserted.email })
    expect(results[5]!.data).toMatchObject({ last_name: "Made" })
    const single = await host.call("POST", "/v1/contacts", { body: { email: "not an email" } })
    expect(results[1]!.error).toMatchObject({
      code: errorOf(single).code,
      message: `operations[1].data.${errorOf(single).message}`,
      details: errorOf(single).details.map((d: { path: string }) => ({ ...d, path: `operations[1].data.${d.path}` }))
    })
    expect(results[3]!.error.code).toBe("not_found")
    expect(results[6]!.error).toMatchObject({ code: "conflict", details: [{ path: "operations[6].data.email" }] })
    // One event per applied operation.
    expect((await eventsSince(since)).map((e) => e.type).sort()).toEqual([
      "contact.created",
      "contact.created",
      "contact.updated",
      "contact.updated"
    ])
  })

  it("applies an atomic batch all at once, or nothing of it", async () => {
    const existing = await ok("POST", "/v1/contacts", { email: email("atomic"), first_name: "Kept" })
    const since = await feedCursor()
    const refused = await batch("/v1/contacts/batch", {
      atomic: true,
      operations: [
        { op: "create", data: { email: email("never") } },
        { op: "update", id: existing.id, data: { first_name: "Changed" } },
        { op: "create", data: { email: 42 } }
      ]
    })
    expect(refused.map((r) => r.status)).toEqual([424, 424, 400])
    expect(refused[0]!.error).toMatchObject({ code: "failed_dependency", message: expect.stringContaining("operation 2") })
    expect(refused[2]!.error.details[0].path).toBe("operations[2].data.email")
    expect((await ok("GET", `/v1/contacts/${existing.id}`)).first_name).toBe("Kept")
    const nothing = await recorded(since)
    expect(nothing.events).toEqual([])

    // An atomic batch writes each record once: an upsert matching the record an update writes is refused as a whole.
    const twice = await host.call("POST", "/v1/contacts/batch", {
      body: {
        atomic: true,
        operations: [
          { op: "update", id: existing.id, data: {} },
          { op: "upsert", match: { email: existing.email }, data: {} }
        ]
      }
    })
    expect(twice.status).toBe(400)
    expect(errorOf(twice).details[0]!.path).toBe("operations[1]")

    const together = await batch("/v1/contacts/batch", {
      atomic: true,
      operations: [
        { op: "create", data: { email: email("together.b") } },
        { op: "update", id: existing.id, data: { first_name: "Changed" } }
      ]
    })
    expect(together.map((r) => r.status)).toEqual([201, 200])
    expect((await ok("GET", `/v1/contacts/${existing.id}`)).first_name).toBe("Changed")
    expect((await eventsSince(nothing.cursor)).map((e) => e.type)).toEqual(["contact.created", "contact.updated"])
  })

  it("replays a batch under its Idempotency-Key without applying it again", async () => {
    const body = { operations: [{ op: "create", data: { email: email("idem") } }] }
    const key = `batch-${Date.now()}`
    const first = await host.call("POST", "/v1/contacts/batch", { body, headers: { "idempotency-key": key } })
    const again = await host.call("POST", "/v1/contacts/batch", { body, headers: { "idempotency-key": key } })
    expect(first.status, first.text).toBe(200)
    expect(again.status).toBe(200)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body).toEqual(first.body)
    const found = await ok("GET", `/v1/contacts?search=${encodeURIComponent(body.operations[0]!.data.email)}`)
    expect(found.data).toHaveLength(1)
  })

  it("refuses a malformed batch or one over 100 operations as a whole, changing nothing", async () => {
    const since = await feedCursor()
    const tooMany = await host.call("POST", "/v1/contacts/batch", {
      body: { operations: Array.from({ length: 101 }, () => ({ op: "create", data: { email: email("many") } })) }
    })
    expect(tooMany.status).toBe(413)
    expect(errorOf(tooMany).code).toBe("payload_too_large")
    for (const [body, path] of [
      [{ operations: [] }, "operations"],
      [{ operations: [{ op: "delete", id: "con_1", data: {} }] }, "operations[0].op"],
      [{ operations: [{ op: "update", data: {} }] }, "operations[0].id"],
      [{ operations: [{ op: "create", id: "con_1", data: {} }] }, "operations[0].id"],
      [{ operations: [{ op: "upsert", match: { phone: "1" }, data: {} }] }, "operations[0].match"],
      [{ operations: [{ op: "upsert", match: { email: "a@x.io" }, data: { email: "b@x.io" } }] }, "operations[0].data.email"],
      [{ operations: [{ op: "create", data: [] }] }, "operations[0].data"],
      [{ operations: [{ op: "create", data: {} }], atomic: "yes" }, "atomic"],
      [{ operations: [{ op: "create", data: {} }], extra: 1 }, "extra"],
      [[], ""]
    ] as const) {
      const answer = await host.call("POST", "/v1/contacts/batch", { body })
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(
        errorOf(answer).details.map((d: { path: string }) => d.path),
        JSON.stringify(body)
      ).toContain(path)
    }
    expect(await eventsSince(since)).toEqual([])
  })

  it("creates and updates deals in a batch; they have no key to upsert on", async () => {
    const pipeline = (await ok("GET", "/v1/pipelines")).data[0]
    const deal = await ok("POST", "/v1/deals", { name: "Batch deal", pipeline_id: pipeline.id })
    const results = await batch("/v1/deals/batch", {
      operations: [
        { op: "create", data: { name: "Made in a batch", pipeline_id: pipeline.id, value: 10 } },
        { op: "update", id: deal.id, data: { value: 99 } },
        { op: "create", data: { name: "No pipeline", pipeline_id: "pipe_missing" } }
      ]
    })
    expect(results.map((r) => r.status)).toEqual([201, 200, results[2]!.status])
    expect(results[2]!.status).toBeGreaterThanOrEqual(400)
    expect(results[0]!.data).toEqual(await ok("GET", `/v1/deals/${results[0]!.data.id}`))
    expect(results[1]!.data.value).toBe(99)
    const upsert = await host.call("POST", "/v1/deals/batch", { body: { operations: [{ op: "upsert", match: { name: "x" }, data: {} }] } })
    expect(upsert.status).toBe(400)
    expect(errorOf(upsert).details[0]).toMatchObject({ path: "operations[0].op" })
  })
})
