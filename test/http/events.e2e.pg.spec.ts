import { describe, expect, it } from "vitest"
import { errorOf, hostFor, KEY_B, STORAGES } from "./client.js"

/**
 * GET /v1/events and /v1/events/:id through a real host, on each storage: the workspace's record
 * events in commit order, as webhook payloads, followed by a cursor that is always given.
 */
describe.each(STORAGES)("the change feed on %s storage", { timeout: 60_000 }, (storage) => {
  const host = hostFor(storage)

  const ok = async (method: string, path: string, body?: unknown, key?: string) => {
    const answer = await host.call(method, path, { ...(body === undefined ? {} : { body }), ...(key === undefined ? {} : { key }) })
    expect(answer.status, answer.text).toBeLessThan(300)
    return answer.body
  }
  const feed = async (query = "", key?: string) => {
    const answer = await host.call("GET", `/v1/events${query}`, key === undefined ? {} : { key })
    expect(answer.status, answer.text).toBe(200)
    expect(typeof answer.body.next_cursor).toBe("string")
    return answer.body as { data: Array<Record<string, any>>; next_cursor: string }
  }
  /** Every event after `after`, following the cursor `limit` at a time. */
  const drain = async (after: string | null, extra = "", limit = 100) => {
    const events: Array<Record<string, any>> = []
    let cursor = after
    for (;;) {
      const page = await feed(`?limit=${limit}${cursor === null ? "" : `&after=${cursor}`}${extra}`)
      events.push(...page.data)
      cursor = page.next_cursor
      if (page.data.length < limit) return { events, cursor }
    }
  }

  it("hands out every record event in commit order, as its webhook payload, and a cursor to go on from", async () => {
    const start = await drain(null)
    const contact = await ok("POST", "/v1/contacts", { email: "feed.one@example.com", first_name: "Feed" })
    const updated = await ok("PATCH", `/v1/contacts/${contact.id}`, { title: "Buyer" })
    const pipeline = (await ok("GET", "/v1/pipelines")).data[0]
    const deal = await ok("POST", "/v1/deals", { name: "Feed deal", pipeline_id: pipeline.id, contact_ids: [contact.id] })
    const moved = await ok("PUT", `/v1/deals/${deal.id}/stage`, { stage_id: pipeline.stages[1].id })
    await ok("DELETE", `/v1/contacts/${contact.id}`)
    const restored = await ok("POST", `/v1/contacts/${contact.id}/restore`)

    const { cursor, events } = await drain(start.cursor)
    expect(events.map((e) => e.type)).toEqual([
      "contact.created",
      "contact.updated",
      "deal.created",
      "deal.stage_changed",
      "contact.deleted",
      "contact.restored"
    ])
    for (const event of events) {
      expect(Object.keys(event)).toEqual(["id", "type", "created_at", "workspace_id", "sequence", "data"])
      expect(event.id).toMatch(/^evt_/)
      expect(event.workspace_id).toBe("ws_a")
    }
    // Each shows the record as the API answered the write that made the event, derived fields included.
    expect(events[0]!.data).toEqual({ contact: { ...contact, deal_ids: [] } })
    expect(events[0]!.created_at).toBe(contact.created_at)
    expect(events[1]!.data).toEqual({ contact: updated, changed_fields: ["title"] })
    expect(events[2]!.data).toEqual({ deal })
    // A move answers with the deal and its timeline entry: the payload's data.
    expect(events[3]!.data).toEqual(moved)
    expect(events[4]!.data).toEqual({ id: contact.id })
    // The restored contact is named by the deal again: its deal_ids as of the restore.
    expect(events[5]!.data).toEqual({ contact: restored })
    expect(restored.deal_ids).toEqual([deal.id])

    // Nothing after the last one: an empty page, and the same cursor to ask again with.
    const after = await feed(`?after=${cursor}`)
    expect(after).toEqual({ data: [], next_cursor: cursor })
    // Page by page, the same events, once each.
    expect((await drain(start.cursor, "", 1)).events).toEqual(events)
    // Types, exact and by prefix; the cursor of a filtered read goes on in the whole feed.
    expect((await drain(start.cursor, "&types=deal.*")).events.map((e) => e.type)).toEqual(["deal.created", "deal.stage_changed"])
    expect((await drain(start.cursor, "&types=contact.deleted,deal.created")).events.map((e) => e.id))
      .toEqual([events[2]!.id, events[4]!.id])

    // One event by its id: the same object.
    const one = await host.call("GET", `/v1/events/${events[3]!.id}`)
    expect(one.status, one.text).toBe(200)
    expect(one.body).toEqual(events[3])
  })

  it("holds an empty read with wait until an event arrives", async () => {
    const { cursor } = await drain(null)
    const waiting = feed(`?after=${cursor}&wait=20`)
    const contact = await ok("POST", "/v1/contacts", { email: "feed.wait@example.com" })
    const page = await waiting
    expect(page.data.map((e) => [e.type, e.data.contact.id])).toEqual([["contact.created", contact.id]])
    // The waiter's cursor goes on after it.
    expect((await feed(`?after=${page.next_cursor}`)).data).toEqual([])
  })

  it("answers an empty page when the wait ends with nothing new", async () => {
    const { cursor } = await drain(null)
    expect(await feed(`?after=${cursor}&wait=1`)).toEqual({ data: [], next_cursor: cursor })
  })

  it("moves the cursor past events the feed does not show, so a poll does not read them again", async () => {
    const { cursor } = await drain(null)
    // A pipeline's events are the workspace's, not the feed's.
    await ok("POST", "/v1/pipelines", { name: `Feedless ${Date.now()}`, stages: [{ name: "One" }] })
    const past = await feed(`?after=${cursor}`)
    expect(past.data).toEqual([])
    expect(past.next_cursor).not.toBe(cursor)
    expect(await feed(`?after=${past.next_cursor}`)).toEqual({ data: [], next_cursor: past.next_cursor })
    const contact = await ok("POST", "/v1/contacts", { email: "feed.after.pipeline@example.com" })
    expect((await feed(`?after=${past.next_cursor}`)).data.map((e) => e.data.contact.id)).toEqual([contact.id])
  })

  it("keeps each workspace's feed to itself", async () => {
    const mine = await drain(null)
    const theirs = await drain(null, "")
    await ok("POST", "/v1/contacts", { email: "feed.b@example.com" }, KEY_B)
    const b = await feed("", KEY_B)
    expect(b.data.length).toBeGreaterThan(0)
    for (const event of b.data) expect(event.workspace_id).toBe("ws_b")
    expect((await drain(theirs.cursor)).events).toEqual([])
    // A cursor or an event id of another workspace is refused.
    const foreign = await host.call("GET", `/v1/events?after=${b.next_cursor}`)
    expect(foreign.status).toBe(400)
    expect(errorOf(foreign)).toMatchObject({ code: "validation_error", details: [{ path: "after" }] })
    const other = await host.call("GET", `/v1/events/${b.data[0]!.id}`)
    expect(other.status).toBe(404)
    expect(errorOf(other).code).toBe("not_found")
    expect(mine.cursor).not.toBe(b.next_cursor)
  })

  it("refuses what it cannot read with 400 and the parameter's path", async () => {
    const { cursor } = await drain(null)
    const refused = async (query: string, path: string) => {
      const answer = await host.call("GET", `/v1/events${query}`)
      expect(answer.status, `${query}: ${answer.text}`).toBe(400)
      expect(errorOf(answer)).toMatchObject({ code: "validation_error", details: [{ path }] })
    }
    await refused("?after=not-a-cursor", "after")
    await refused(`?after=${cursor.slice(0, -2)}`, "after")
    await refused("?types=contact.merged", "types")
    await refused("?types=nothing.*", "types")
    await refused("?limit=0", "limit")
    await refused("?limit=1001", "limit")
    await refused("?wait=31", "wait")
    await refused("?wait=-1", "wait")
    await refused("?cursor=abc", "cursor")
    const missing = await host.call("GET", "/v1/events/evt_missing")
    expect(missing.status).toBe(404)
    expect(errorOf(missing).code).toBe("not_found")
  })
})
