import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { errorOf, hostFor, KEY_A, KEY_B, STORAGES } from "./client.js"

// The id the host gives an API key: key_ and the first 12 hex digits of its SHA-256.
const keyId = `key_${createHash("sha256").update(KEY_A).digest("hex").slice(0, 12)}`

describe.each(STORAGES)("record history on %s storage", (storage) => {
  const host = hostFor(storage)

  const ok = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const answer = await host.call(method, path, { ...(body === undefined ? {} : { body }), headers })
    expect(answer.status, answer.text).toBeLessThan(300)
    return answer.body
  }

  it("lists a contact's changes oldest first: who, when, the request, each field before and after", async () => {
    const field = `tier_${Date.now().toString(36)}`
    await ok("POST", "/v1/custom-fields", { object: "contact", key: field, label: "Tier", type: "text" })
    const contact = await ok(
      "POST",
      "/v1/contacts",
      { email: "hist@example.com", first_name: "Ada" },
      { "x-request-id": "req-hist-create" }
    )
    await ok(
      "PATCH",
      `/v1/contacts/${contact.id}`,
      { title: "CTO", first_name: "Ada", [field]: "gold" },
      { "x-request-id": "req-hist-patch" }
    )
    await ok("DELETE", `/v1/contacts/${contact.id}`)
    await ok("POST", `/v1/contacts/${contact.id}/restore`)

    const history = await host.call("GET", `/v1/contacts/${contact.id}/history`)
    expect(history.status, history.text).toBe(200)
    expect(history.body.next_cursor).toBeNull()
    const entries = history.body.data as Array<Record<string, any>>
    expect(entries.map((e) => e.type)).toEqual(["contact.created", "contact.updated", "contact.deleted", "contact.restored"])
    expect(entries[0]).toMatchObject({ actor: { api_key_id: keyId }, request_id: "req-hist-create" })
    expect(entries[0]!.event_id).toMatch(/^evt_/)
    expect(entries[0]!.at).toBe(contact.created_at)
    // A create lists what it set, from null; unset fields and timestamps are not changes.
    expect(entries[0]!.changes).toEqual([
      { field: "id", from: null, to: contact.id },
      { field: "email", from: null, to: "hist@example.com" },
      { field: "first_name", from: null, to: "Ada" },
      // Stored on every contact since companies exist: none, as a list.
      { field: "company_ids", from: null, to: [] }
    ])
    // An update lists only what it changed, custom fields included; the same first_name is no change.
    expect(entries[1]).toMatchObject({ request_id: "req-hist-patch" })
    expect(entries[1]!.changes).toEqual([
      { field: "title", from: null, to: "CTO" },
      { field, from: null, to: "gold" }
    ])
    expect(entries[2]!.changes).toEqual([])
    expect(entries[3]!.changes).toEqual([])

    // Pages of two follow the cursor to the same entries.
    const first = await host.call("GET", `/v1/contacts/${contact.id}/history?limit=2`)
    expect(first.body.data.map((e: any) => e.event_id)).toEqual(entries.slice(0, 2).map((e) => e.event_id))
    const second = await host.call("GET", `/v1/contacts/${contact.id}/history?limit=2&cursor=${first.body.next_cursor}`)
    expect(second.body.data.map((e: any) => e.event_id)).toEqual(entries.slice(2).map((e) => e.event_id))
    expect(second.body.next_cursor).toBeNull()
  })

  it("shows a deal's stage move as a change of stage_id (and of when it entered the stage)", async () => {
    const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
    const deal = await ok("POST", "/v1/deals", { name: "History deal", pipeline_id: pipeline.id })
    const move = await ok("PUT", `/v1/deals/${deal.id}/stage`, { stage_id: pipeline.stages[1].id, reason: "qualified" })
    const history = await host.call("GET", `/v1/deals/${deal.id}/history`)
    expect(history.status, history.text).toBe(200)
    const moved = history.body.data.find((e: any) => e.type === "deal.stage_changed")
    expect(moved.changes).toEqual([
      { field: "stage_id", from: pipeline.stages[0].id, to: pipeline.stages[1].id },
      { field: "stage_entered_at", from: deal.stage_entered_at, to: move.timeline_entry.changed_at }
    ])
  })

  it("refuses a bad cursor, limit or parameter with 400 and an unknown or foreign record with 404", async () => {
    const contact = await ok("POST", "/v1/contacts", { email: "hist-errors@example.com" })
    const other = await ok("POST", "/v1/contacts", { email: "hist-other@example.com" })
    const otherPage = await host.call("GET", `/v1/contacts/${other.id}/history?limit=1`)
    const refusals: Array<[string, string]> = [
      [`/v1/contacts/${contact.id}/history?cursor=nonsense`, "cursor"],
      // A cursor of another record's history is not one of this one's.
      [`/v1/contacts/${contact.id}/history?cursor=${otherPage.body.next_cursor ?? "x"}`, "cursor"],
      [`/v1/contacts/${contact.id}/history?limit=0`, "limit"],
      [`/v1/contacts/${contact.id}/history?sort=at`, "sort"]
    ]
    for (const [path, at] of refusals) {
      const answer = await host.call("GET", path)
      expect(answer.status, `${path}: ${answer.text}`).toBe(400)
      expect(errorOf(answer).details.map((d) => d.path)).toEqual([at])
    }
    expect((await host.call("GET", "/v1/contacts/con_nope/history")).status).toBe(404)
    expect((await host.call("GET", `/v1/deals/${contact.id}/history`)).status).toBe(404)
    expect((await host.call("GET", `/v1/contacts/${contact.id}/history`, { key: KEY_B })).status).toBe(404)
  })
})

/** Until the host's clock (the same machine's) is past `at`, so the next write is recorded after it. */
const after = async (at: string) => {
  while (Date.now() <= Date.parse(at)) await new Promise((resolve) => setTimeout(resolve, 1))
}

describe.each(STORAGES)("as_of on %s storage", (storage) => {
  const host = hostFor(storage)

  const ok = async (method: string, path: string, body?: unknown) => {
    const answer = await host.call(method, path, body === undefined ? {} : { body })
    expect(answer.status, answer.text).toBeLessThan(300)
    return answer.body
  }

  it("reads a contact as it stood: its fields and the deals that named it then; 404 before it existed and while deleted", async () => {
    const contact = await ok("POST", "/v1/contacts", { email: "asof@example.com", first_name: "Ada" })
    const created = contact.created_at as string
    await after(created)
    const patched = await ok("PATCH", `/v1/contacts/${contact.id}`, { title: "CTO" })
    await after(patched.updated_at)
    const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
    const deal = await ok("POST", "/v1/deals", { name: "As of", pipeline_id: pipeline.id, contact_ids: [contact.id] })
    await after(deal.created_at)

    const at = async (instant: string) => host.call("GET", `/v1/contacts/${contact.id}?as_of=${encodeURIComponent(instant)}`)
    const then = await at(created)
    expect(then.status, then.text).toBe(200)
    expect(then.body).toEqual({ ...contact, deal_ids: [] })
    expect(then.headers.get("etag")).toBe('"1"')
    expect((await at(patched.updated_at)).body).toMatchObject({ title: "CTO", deal_ids: [] })
    expect((await at(deal.created_at)).body).toMatchObject({ title: "CTO", deal_ids: [deal.id] })
    // Another zone, the same instant.
    const shifted = new Date(Date.parse(deal.created_at)).toISOString().replace("Z", "+00:00")
    expect((await at(shifted)).body.deal_ids).toEqual([deal.id])

    expect((await at(new Date(Date.parse(created) - 1).toISOString())).status).toBe(404)
    expect((await host.call("DELETE", `/v1/contacts/${contact.id}`)).status).toBe(204)
    expect((await at(new Date(Date.now() + 60_000).toISOString())).status).toBe(404)
    expect((await at(deal.created_at)).status).toBe(200)
  })

  it("reads a deal as it stood: its stage then, and the contacts live then", async () => {
    const contact = await ok("POST", "/v1/contacts", { email: "asof-deal@example.com" })
    const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
    const deal = await ok("POST", "/v1/deals", { name: "Stage then", pipeline_id: pipeline.id, contact_ids: [contact.id] })
    await after(deal.created_at)
    const moved = await ok("PUT", `/v1/deals/${deal.id}/stage`, { stage_id: pipeline.stages[1].id })
    await after(moved.deal.updated_at)
    expect((await host.call("DELETE", `/v1/contacts/${contact.id}`)).status).toBe(204)

    const then = await host.call("GET", `/v1/deals/${deal.id}?as_of=${encodeURIComponent(deal.created_at)}`)
    expect(then.status, then.text).toBe(200)
    expect(then.body).toEqual(deal)
    // Now the contact is in the trash and the deal's GET leaves it out; as of the move it was live.
    expect((await host.call("GET", `/v1/deals/${deal.id}`)).body.contact_ids).toEqual([])
    const atMove = await host.call("GET", `/v1/deals/${deal.id}?as_of=${encodeURIComponent(moved.deal.updated_at)}`)
    expect(atMove.body).toMatchObject({ stage_id: pipeline.stages[1].id, contact_ids: [contact.id] })
  })

  it("refuses a malformed as_of, and as_of with expand, with 400", async () => {
    const contact = await ok("POST", "/v1/contacts", { email: "asof-bad@example.com" })
    for (const path of [
      `/v1/contacts/${contact.id}?as_of=yesterday`,
      `/v1/contacts/${contact.id}?as_of=2026-01-01`,
      `/v1/contacts/${contact.id}?as_of=2026-01-01T00:00:00Z&expand=deals`,
      `/v1/deals/${contact.id}?as_of=soon`
    ]) {
      const answer = await host.call("GET", path)
      expect(answer.status, `${path}: ${answer.text}`).toBe(400)
      expect(errorOf(answer).details.map((d) => d.path)).toEqual(["as_of"])
    }
  })
})
