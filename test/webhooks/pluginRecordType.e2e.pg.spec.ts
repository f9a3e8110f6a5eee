import { describe, expect, it } from "vitest"
import { note } from "../plugins/note/note.js"
import { errorOf, hostFor, STORAGES } from "../http/client.js"
import { as, receiverForTest, register, WEBHOOK_API_KEYS, workspaces } from "./support.js"

/**
 * Issue 26's proof: a record type the built-in code does not know, given to a host as a plug-in
 * (its folder test/plugins/note and the `recordTypes` line below), is served over HTTP as companies
 * are: create, read, list, patch, batch, delete, the trash, restore, history; announced to a real
 * receiver and handed out by the change feed, the same bytes; on memory and on PostgreSQL, where its
 * table is made by its own migration.
 */
describe.each(STORAGES)("a plug-in record type served on %s storage", { timeout: 90_000 }, (storage) => {
  const host = hostFor(storage, { apiKeys: WEBHOOK_API_KEYS, webhooks: { allowInsecure: true }, recordTypes: [note] })
  const workspace = workspaces()

  it("is written, listed, trashed, restored and told of like a built-in record type", async () => {
    const api = as(host, workspace())
    const ok = async (method: string, path: string, body?: unknown, status = 200) => {
      const answer = await api.call(method, path, body === undefined ? {} : { body })
      expect(answer.status, answer.text).toBe(status)
      return answer
    }
    const receiver = await receiverForTest()
    const hook = await register(api, receiver.url, {
      events: ["note.created", "note.updated", "note.deleted", "note.restored"],
      secret: "note-secret-0123"
    })

    const created = await ok("POST", "/v1/notes", { title: " Kick-off ", body: "agenda and owners", slug: "kickoff" }, 201)
    const id = created.body.id as string
    expect(created.headers.get("location")).toBe(`/v1/notes/${id}`)
    expect(created.headers.get("etag")).toBe('"1"')
    expect(Object.keys(created.body)).toEqual(["id", "title", "body", "slug", "created_at", "updated_at"])
    expect(created.body).toMatchObject({ title: "Kick-off", body: "agenda and owners", slug: "kickoff" })
    expect((await ok("GET", `/v1/notes/${id}`)).body).toEqual(created.body)

    // Bad input is a 400 in the contract's shape, and changes nothing; a taken slug is a 409.
    const refused = await api.call("POST", "/v1/notes", { body: { body: "no title", colour: "red" } })
    expect(refused.status).toBe(400)
    expect(errorOf(refused).details.map((d) => d.path)).toEqual(["title", "colour"])
    const taken = await api.call("POST", "/v1/notes", { body: { title: "Twice", slug: "KICKOFF" } })
    expect(taken.status, taken.text).toBe(409)
    expect(errorOf(taken).details).toEqual([{ path: "slug", message: `is already used by ${id}`, id }])

    const patched = await api.call("PATCH", `/v1/notes/${id}`, { body: { body: "agenda, owners, dates" }, headers: { "if-match": '"1"' } })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.headers.get("etag")).toBe('"2"')
    const stale = await api.call("PATCH", `/v1/notes/${id}`, { body: { body: "late" }, headers: { "if-match": '"1"' } })
    expect(stale.status).toBe(412)

    // Atomic: one commit, its events in the order of its operations.
    const batch = await ok("POST", "/v1/notes/batch", {
      atomic: true,
      operations: [
        { op: "upsert", match: { slug: "kickoff" }, data: { title: "Kick-off (moved)" } },
        { op: "create", data: { title: "Retro", body: "what went well" } }
      ]
    })
    expect(batch.body.results.map((r: Record<string, unknown>) => r["status"])).toEqual([200, 201])
    const retro = batch.body.results[1].data.id as string

    const searched = await ok("GET", "/v1/notes?search=dates")
    expect(searched.body.data.map((n: { id: string }) => n.id)).toEqual([id])
    const sorted = await ok("GET", "/v1/notes?sort=-title&limit=1")
    expect(sorted.body.data.map((n: { title: string }) => n.title)).toEqual(["Retro"])
    const next = await ok("GET", `/v1/notes?sort=-title&limit=1&cursor=${encodeURIComponent(sorted.body.next_cursor)}`)
    expect(next.body.data.map((n: { title: string }) => n.title)).toEqual(["Kick-off (moved)"])
    const filtered = await ok("GET", `/v1/notes?filter=${encodeURIComponent(JSON.stringify({ slug: "kickoff" }))}`)
    expect(filtered.body.data.map((n: { id: string }) => n.id)).toEqual([id])
    expect((await api.call("GET", "/v1/notes?colour=red")).status).toBe(400)

    await ok("DELETE", `/v1/notes/${retro}`, undefined, 204)
    expect((await api.call("GET", `/v1/notes/${retro}`)).status).toBe(404)
    const trash = await ok("GET", "/v1/trash?type=note")
    expect(trash.body.data.map((t: Record<string, any>) => [t["type"], t["id"], t["record"]["title"]])).toEqual([["note", retro, "Retro"]])
    expect((await ok("POST", `/v1/notes/${retro}/restore`)).body.title).toBe("Retro")
    expect((await ok("GET", "/v1/trash?type=note")).body.data).toEqual([])

    const history = await ok("GET", `/v1/notes/${id}/history`)
    expect(history.body.data.map((e: { type: string }) => e.type)).toEqual(["note.created", "note.updated", "note.updated"])
    expect(history.body.data[1].changes).toEqual([{ field: "body", from: "agenda and owners", to: "agenda, owners, dates" }])

    // Six events: the two creates, the kick-off's two updates, the retro's delete and restore.
    const count = 6
    await receiver.waitFor((received) => received.length >= count, `${count} deliveries`)
    const sent = receiver.received.map((request) => JSON.parse(request.rawBody.toString("utf8")) as Record<string, any>)
    expect(sent.map((payload) => payload["type"]).sort()).toEqual([
      "note.created",
      "note.created",
      "note.deleted",
      "note.restored",
      "note.updated",
      "note.updated"
    ])
    const told = sent.find((payload) => payload["type"] === "note.created" && payload["data"]["note"]["id"] === id)!
    expect(told["data"]).toEqual({ note: created.body })
    expect(receiver.received.every((request) => request.headers["webhook-signature"] !== undefined)).toBe(true)

    const feed = await ok("GET", "/v1/events?types=note.*&limit=100")
    expect(feed.body.data.map((e: { type: string }) => e.type)).toEqual([
      "note.created",
      "note.updated",
      "note.updated",
      "note.created",
      "note.deleted",
      "note.restored"
    ])
    const sentById = new Map(
      receiver.received.map((request) => [JSON.parse(request.rawBody.toString("utf8")).id, request.rawBody.toString("utf8")])
    )
    for (const event of feed.body.data as Array<{ id: string }>) expect(JSON.stringify(event)).toBe(sentById.get(event.id))
    expect(hook.events).toEqual(["note.created", "note.updated", "note.deleted", "note.restored"])
  })
})
