import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, type Host, KEY_B, startHost } from "../http/client.js"
import { testDatabase } from "../support/pg.js"

// Two hosts on one database, as in a scale-out: each has its own pool, engine and in-process
// caches; whatever one answers about the other's writes came from the database.
let a: Host
let b: Host
const database = Effect.runSync(Scope.make())
beforeAll(async () => {
  const url = await Effect.runPromise(Scope.provide(testDatabase, database))
  // Started together: migrations run under an advisory lock, so both may start at once.
  ;[a, b] = await Promise.all([startHost({ storage: { postgres: url } }), startHost({ storage: { postgres: url } })])
})
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()])
  await Effect.runPromise(Scope.close(database, Exit.void))
})

describe("two hosts on one PostgreSQL database", () => {
  it("listen on different ports", () => {
    expect(a.url).not.toBe(b.url)
  })

  it("one host reads the other's writes at once: records, lists, search, ETags, timelines", async () => {
    const contact = await a.call("POST", "/v1/contacts", { body: { email: "shared@example.com", first_name: "Shared" } })
    expect(contact.status).toBe(201)
    const onB = await b.call("GET", `/v1/contacts/${contact.body.id}`)
    expect(onB.status).toBe(200)
    expect(onB.body).toEqual(contact.body)
    expect(onB.headers.get("etag")).toBe('"1"')
    expect((await b.call("GET", "/v1/contacts?search=shared")).body.data.map((c: { id: string }) => c.id)).toEqual([contact.body.id])

    // B updates, A sees the new version; A's stale If-Match is refused.
    const patched = await b.call("PATCH", `/v1/contacts/${contact.body.id}`, { body: { title: "CTO" }, headers: { "if-match": '"1"' } })
    expect(patched.status).toBe(200)
    expect((await a.call("GET", `/v1/contacts/${contact.body.id}`)).body.title).toBe("CTO")
    const stale = await a.call("PATCH", `/v1/contacts/${contact.body.id}`, { body: { title: "CEO" }, headers: { "if-match": '"1"' } })
    expect(stale.status).toBe(412)
    expect(errorOf(stale).code).toBe("precondition_failed")

    // A deal created on B, moved on A: B's timeline has the move.
    const sales = (await b.call("GET", "/v1/pipelines")).body.data[0]
    const deal = await b.call("POST", "/v1/deals", { body: { name: "Shared deal", pipeline_id: sales.id, contact_ids: [contact.body.id] } })
    expect(deal.status).toBe(201)
    const moved = await a.call("PUT", `/v1/deals/${deal.body.id}/stage`, { body: { stage_id: sales.stages[2].id, reason: "demo" } })
    expect(moved.status).toBe(200)
    const timeline = await b.call("GET", `/v1/deals/${deal.body.id}/timeline`)
    expect(timeline.body.data.map((e: { to_stage_id: string }) => e.to_stage_id)).toEqual([sales.stages[2].id])
    expect((await b.call("GET", `/v1/contacts/${contact.body.id}`)).body.deal_ids).toEqual([deal.body.id])
  })

  it("a contact created on host A makes host B answer 409 for the same email, in any case", async () => {
    const first = await a.call("POST", "/v1/contacts", { body: { email: "unique@example.com" } })
    expect(first.status).toBe(201)
    const again = await b.call("POST", "/v1/contacts", { body: { email: "Unique@Example.com" } })
    expect(again.status).toBe(409)
    const error = errorOf(again)
    expect(error.code).toBe("conflict")
    expect(error.details[0]?.id).toBe(first.body.id)
    // Uniqueness is per workspace, across hosts too.
    expect((await b.call("POST", "/v1/contacts", { key: KEY_B, body: { email: "unique@example.com" } })).status).toBe(201)
  })

  it("racing creates of one email on both hosts: exactly one wins, the other is 409", async () => {
    for (let round = 0; round < 5; round++) {
      const email = `race${round}@example.com`
      const answers = await Promise.all([
        a.call("POST", "/v1/contacts", { body: { email } }),
        b.call("POST", "/v1/contacts", { body: { email } })
      ])
      expect(answers.map((x) => x.status).sort()).toEqual([201, 409])
      const winner = answers.find((x) => x.status === 201)!
      expect(errorOf(answers.find((x) => x.status === 409)!).details[0]?.id).toBe(winner.body.id)
      const listed = await a.call("GET", `/v1/contacts?search=${encodeURIComponent(email)}`)
      expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([winner.body.id])
    }
  })

  it("a record deleted on one host is gone on the other, and restores there", async () => {
    const contact = (await a.call("POST", "/v1/contacts", { body: { email: "gone@example.com" } })).body
    expect((await b.call("DELETE", `/v1/contacts/${contact.id}`)).status).toBe(204)
    expect((await a.call("GET", `/v1/contacts/${contact.id}`)).status).toBe(404)
    expect((await a.call("GET", "/v1/trash?type=contact")).body.data.map((i: { id: string }) => i.id)).toContain(contact.id)
    expect((await a.call("POST", `/v1/contacts/${contact.id}/restore`)).status).toBe(200)
    expect((await b.call("GET", `/v1/contacts/${contact.id}`)).status).toBe(200)
  })
})
