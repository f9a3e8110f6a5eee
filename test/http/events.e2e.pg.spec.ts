import { EngineLive, IdsLive, WebhookConfig, WebhookTransport, WebhookTransportUnavailable } from "@dealstream/core"
import { HostLive } from "@dealstream/http"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { collectFeed, type FeedRead, readUntil, recordedUntilMarker } from "../support/feedPolling.js"
import { inLineBeforeAnswer, watchingFeedReads } from "../support/feedWatch.js"
import { pgStorageLayer } from "../support/pg.js"
import { callerOf, errorOf, type Host, hostFor, KEY_A, KEY_B, type StorageKind, STORAGES } from "./client.js"

type Event = Record<string, any>
type Page = { data: Array<Event>; next_cursor: string }

/**
 * A host of its own, on a storage whose feed reads are watched (test/support/feedWatch.ts), so the
 * long-poll test can tell when its read waits. The real host, engine and storage, over a socket.
 */
const watchedHostFor = (storage: StorageKind) => {
  const watched = watchingFeedReads(storage === "memory" ? MemoryStorage.layer : pgStorageLayer)
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
    }).pipe(
      Layer.provide(
        EngineLive.pipe(
          Layer.provideMerge(IdsLive),
          Layer.provideMerge(watched.layer),
          Layer.provideMerge(WebhookConfig.layer()),
          Layer.provideMerge(Layer.succeed(WebhookTransport, WebhookTransportUnavailable))
        )
      )
    )
    scope = Effect.runSync(Scope.make())
    const address = Context.get(await Effect.runPromise(Layer.buildWithScope(host, scope)), HttpServer.HttpServer).address
    if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
    call = callerOf(`http://127.0.0.1:${address.port}`)
  })
  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  return {
    call: ((method, path, options) => {
      if (call === undefined) throw new Error("the host starts in beforeAll")
      return call(method, path, options)
    }) as Host["call"],
    readerInLine: watched.readerInLine
  }
}

/**
 * GET /v1/events and /v1/events/:id through a real host, on each storage: the workspace's record
 * events in commit order, as webhook payloads, followed by a cursor that is always given.
 *
 * Other tests write on the same PostgreSQL server meanwhile, and the feed holds an event back while
 * an older transaction runs: what a write should have added is read until it comes (collectFeed),
 * and where nothing should have been added, a marker written afterwards must be the only new event
 * (recordedUntilMarker, which also gives each test a cursor past everything written before it).
 */
describe.each(STORAGES)("the change feed on %s storage", { timeout: 120_000 }, (storage) => {
  const host = hostFor(storage)
  const waiter = watchedHostFor(storage)

  const api = (on: Pick<Host, "call">) => {
    const ok = async (method: string, path: string, body?: unknown, key?: string) => {
      const answer = await on.call(method, path, { ...(body === undefined ? {} : { body }), ...(key === undefined ? {} : { key }) })
      expect(answer.status, answer.text).toBeLessThan(300)
      return answer.body
    }
    const feed = async (query = "", key?: string): Promise<Page> => {
      const answer = await on.call("GET", `/v1/events${query}`, key === undefined ? {} : { key })
      expect(answer.status, answer.text).toBe(200)
      expect(typeof answer.body.next_cursor).toBe("string")
      return answer.body
    }
    const reader =
      (key?: string): FeedRead<Event> =>
      (params) =>
        feed(`?${new URLSearchParams(params)}`, key)
    let marks = 0
    /** A cursor past every event written so far. */
    const settled = async () =>
      (
        await recordedUntilMarker(
          reader(),
          null,
          async () => (await ok("POST", "/v1/contacts", { email: `feed.settled.${Date.now()}.${marks++}@example.com` })).id
        )
      ).cursor
    return { ok, feed, reader, settled }
  }
  const { feed, ok, reader, settled } = api(host)
  /** The `count` events after `after` that a read gives (waiting for them), and nothing after them. */
  const exactly = async (after: string | null, count: number, options: { readonly limit?: number; readonly types?: string } = {}) => {
    const got = await collectFeed(reader(), after, count, options)
    expect(got.events).toHaveLength(count)
    const more = await feed(`?after=${got.cursor}${options.types === undefined ? "" : `&types=${options.types}`}`)
    expect(more.data, "events after those awaited").toEqual([])
    return got
  }

  it("hands out every record event in commit order, as its webhook payload, and a cursor to go on from", async () => {
    const start = await settled()
    const contact = await ok("POST", "/v1/contacts", { email: "feed.one@example.com", first_name: "Feed" })
    const updated = await ok("PATCH", `/v1/contacts/${contact.id}`, { title: "Buyer" })
    const pipeline = (await ok("GET", "/v1/pipelines")).data[0]
    const deal = await ok("POST", "/v1/deals", { name: "Feed deal", pipeline_id: pipeline.id, contact_ids: [contact.id] })
    const moved = await ok("PUT", `/v1/deals/${deal.id}/stage`, { stage_id: pipeline.stages[1].id })
    await ok("DELETE", `/v1/contacts/${contact.id}`)
    const restored = await ok("POST", `/v1/contacts/${contact.id}/restore`)

    const { cursor, events } = await collectFeed(reader(), start, 6)
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
    expect((await exactly(start, 6, { limit: 1 })).events).toEqual(events)
    // Types, exact and by prefix; the cursor of a filtered read goes on in the whole feed.
    expect((await exactly(start, 2, { types: "deal.*" })).events.map((e) => e.type)).toEqual(["deal.created", "deal.stage_changed"])
    expect((await exactly(start, 2, { types: "contact.deleted,deal.created" })).events.map((e) => e.id)).toEqual([
      events[2]!.id,
      events[4]!.id
    ])

    // One event by its id: the same object.
    const one = await host.call("GET", `/v1/events/${events[3]!.id}`)
    expect(one.status, one.text).toBe(200)
    expect(one.body).toEqual(events[3])
  })

  it("holds an empty read with wait until an event arrives", async () => {
    // On a host whose storage tells when the read waits: the write must come after that, or the
    // read could find the event at once and pass without having waited.
    const on = api(waiter)
    const cursor = await on.settled()
    const inLine = waiter.readerInLine("ws_a")
    const waiting = on.feed(`?after=${cursor}&wait=30`)
    await inLineBeforeAnswer(inLine, waiting)
    const contact = await on.ok("POST", "/v1/contacts", { email: "feed.wait@example.com" })
    const page = await waiting
    expect(page.data.map((e) => [e.type, e.data.contact.id])).toEqual([["contact.created", contact.id]])
    // The waiter's cursor goes on after it.
    expect((await on.feed(`?after=${page.next_cursor}`)).data).toEqual([])
  })

  it("answers an empty page when the wait ends with nothing new", async () => {
    const cursor = await settled()
    expect(await feed(`?after=${cursor}&wait=1`)).toEqual({ data: [], next_cursor: cursor })
  })

  it("moves the cursor past events the feed does not show, so a poll does not read them again", async () => {
    const cursor = await settled()
    // A pipeline's events are the workspace's, not the feed's. A read moves past them once it can
    // see them; until then it answers the cursor it was given.
    await ok("POST", "/v1/pipelines", { name: `Feedless ${Date.now()}`, stages: [{ name: "One" }] })
    const past = await Effect.runPromise(
      readUntil(
        Effect.promise(() => feed(`?after=${cursor}`)),
        (page) => page.next_cursor !== cursor,
        "the cursor to move past the pipeline's events"
      )
    )
    expect(past.data).toEqual([])
    expect(past.next_cursor).not.toBe(cursor)
    expect(await feed(`?after=${past.next_cursor}`)).toEqual({ data: [], next_cursor: past.next_cursor })
    const contact = await ok("POST", "/v1/contacts", { email: "feed.after.pipeline@example.com" })
    expect((await exactly(past.next_cursor, 1)).events.map((e) => e.data.contact.id)).toEqual([contact.id])
  })

  it("keeps each workspace's feed to itself", async () => {
    const mine = await settled()
    await ok("POST", "/v1/contacts", { email: "feed.b@example.com" }, KEY_B)
    const b = await collectFeed(reader(KEY_B), null, 1)
    expect(b.events.length).toBeGreaterThan(0)
    for (const event of b.events) expect(event.workspace_id).toBe("ws_b")
    // Nothing of it in workspace A's feed: a marker written after it is all that is new there.
    const marked = await recordedUntilMarker(
      reader(),
      mine,
      async () => (await ok("POST", "/v1/contacts", { email: `feed.b.marker.${Date.now()}@example.com` })).id
    )
    expect(marked.events).toEqual([])
    // A cursor or an event id of another workspace is refused.
    const foreign = await host.call("GET", `/v1/events?after=${b.cursor}`)
    expect(foreign.status).toBe(400)
    expect(errorOf(foreign)).toMatchObject({ code: "validation_error", details: [{ path: "after" }] })
    const other = await host.call("GET", `/v1/events/${b.events[0]!.id}`)
    expect(other.status).toBe(404)
    expect(errorOf(other).code).toBe("not_found")
    expect(mine).not.toBe(b.cursor)
  })

  it("refuses what it cannot read with 400 and the parameter's path", async () => {
    const cursor = await settled()
    const refused = async (query: string, path: string) => {
      const answer = await host.call("GET", `/v1/events${query}`)
      expect(answer.status, `${query}: ${answer.text}`).toBe(400)
      expect(errorOf(answer)).toMatchObject({ code: "validation_error", details: [{ path }] })
    }
    await refused("?after=not-a-cursor", "after")
    await refused(`?after=${cursor.slice(0, -2)}`, "after")
    await refused("?types=contact.split", "types")
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
