import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { type Answer, errorOf, hostFor, KEY_A, KEY_B, STORAGES } from "./client.js"

// Key management over the API (issue 33, items 2 and 5) on both storages, on a real host over real
// sockets: the key shown once, scopes a key cannot hand out, the last key that manages keys,
// expiry, last_used_at, the keys' events in the change feed, and history naming the key.

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")
const idOf = (key: string) => `key_${sha256(key).slice(0, 12)}`

/** ws_c has no configured key but this one, which may manage keys and read contacts only. */
const BOOT = "key_charlie_0123456789"
const API_KEYS = `ws_a:${KEY_A},ws_b:${KEY_B},ws_c:${BOOT}@keys:manage+contacts:read+contacts:write+events:read`

/** Polls `check` every 100 ms until it holds; fails after `ms` (a bound on an event, not a measurement). */
const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean, what: string, ms = 10_000): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const RECORD_KEYS = ["id", "name", "scopes", "expires_at", "last_used_at", "created_at", "revoked_at"]

for (const storage of STORAGES) {
  describe(`API keys over the API on ${storage} storage`, () => {
    const host = hostFor(storage, { apiKeys: API_KEYS })

    const ok = async (answer: Promise<Answer>, status = 200) => {
      const got = await answer
      expect(got.status, got.text).toBe(status)
      return got
    }
    const make = (body: unknown, key = KEY_A, headers: Record<string, string> = {}) =>
      host.call("POST", "/v1/api-keys", { key, body, headers })

    it("creates a key answered once with its secret, lists, gets, patches and revokes it", async () => {
      const before = new Date().toISOString()
      const created = await ok(make({ name: "Nightly report", scopes: ["contacts:read", "deals:read"] }), 201)
      const key: string = created.body.key
      expect(key).toMatch(/^dsk_[A-Za-z0-9_-]{43}$/)
      const id = idOf(key)
      expect(Object.keys(created.body)).toEqual([...RECORD_KEYS, "key"])
      expect(created.body).toMatchObject({
        id,
        name: "Nightly report",
        scopes: ["contacts:read", "deals:read"],
        expires_at: null,
        last_used_at: null,
        revoked_at: null
      })
      expect(created.body.created_at >= before).toBe(true)
      expect(created.headers.get("location")).toBe(`/v1/api-keys/${id}`)
      expect(created.headers.get("etag")).toBe('"1"')

      // The key works, for what its scopes allow only.
      expect((await host.call("GET", "/v1/contacts", { key })).status).toBe(200)
      const refused = await host.call("POST", "/v1/contacts", { key, body: { email: "no@example.com" } })
      expect(refused.status).toBe(403)
      expect(errorOf(refused).details[0]!.scope).toBe("contacts:write")
      // It cannot manage keys: it lacks keys:manage.
      expect((await host.call("GET", "/v1/api-keys", { key })).status).toBe(403)

      // Listed and read without the secret or its digest; another workspace does not see it.
      const listed = await ok(host.call("GET", "/v1/api-keys"))
      const mine = listed.body.data.find((k: { id: string }) => k.id === id)
      expect(Object.keys(mine)).toEqual(RECORD_KEYS)
      const got = await ok(host.call("GET", `/v1/api-keys/${id}`))
      expect(Object.keys(got.body)).toEqual(RECORD_KEYS)
      for (const answer of [listed, got]) {
        expect(answer.text).not.toContain(key)
        expect(answer.text).not.toContain(sha256(key))
      }
      expect((await host.call("GET", `/v1/api-keys/${id}`, { key: KEY_B })).status).toBe(404)
      expect((await host.call("GET", "/v1/api-keys", { key: KEY_B })).body.data.map((k: { id: string }) => k.id)).not.toContain(id)

      // PATCH: name, scopes, expiry; the host that made the change applies it at once.
      const expires = new Date(Date.now() + 3_600_000).toISOString()
      const patched = await ok(
        host.call("PATCH", `/v1/api-keys/${id}`, {
          body: { name: "Nightly", scopes: ["contacts:read", "contacts:write"], expires_at: expires },
          headers: { "if-match": '"1"' }
        })
      )
      expect(patched.body).toMatchObject({ id, name: "Nightly", scopes: ["contacts:read", "contacts:write"], expires_at: expires })
      expect(patched.headers.get("etag")).toBe('"2"')
      expect(patched.text).not.toContain(key)
      expect((await host.call("POST", "/v1/contacts", { key, body: { email: "now@example.com" } })).status).toBe(201)
      const stale = await host.call("PATCH", `/v1/api-keys/${id}`, { body: { name: "x" }, headers: { "if-match": '"1"' } })
      expect(stale.status).toBe(412)
      const unchanged = await ok(host.call("PATCH", `/v1/api-keys/${id}`, { body: { name: "Nightly" } }))
      expect(unchanged.headers.get("etag")).toBe('"2"')

      // DELETE revokes: 204, refused at once here, still listed with revoked_at; again changes nothing.
      await ok(host.call("DELETE", `/v1/api-keys/${id}`), 204)
      const gone = await host.call("GET", "/v1/contacts", { key })
      expect(gone.status).toBe(401)
      expect(errorOf(gone).message).toBe("unknown API key")
      const revoked = await ok(host.call("GET", `/v1/api-keys/${id}`))
      expect(typeof revoked.body.revoked_at).toBe("string")
      await ok(host.call("DELETE", `/v1/api-keys/${id}`), 204)
      const frozen = await host.call("PATCH", `/v1/api-keys/${id}`, { body: { name: "again" } })
      expect(frozen.status).toBe(409)
      expect(errorOf(frozen).message).toContain("revoked")
    })

    it("refuses bodies it cannot read, keys it does not know, and keys of another workspace", async () => {
      const bad = await make({ name: "", scopes: ["contacts:erase"], expires_at: "2020-01-01T00:00:00Z", key: "dsk_mine" })
      expect(bad.status).toBe(400)
      expect(errorOf(bad).details.map((d) => d.path)).toEqual(["name", "scopes[0]", "key"])
      const past = await make({ name: "old", scopes: "*", expires_at: "2020-01-01T00:00:00Z" })
      expect(past.status).toBe(400)
      expect(errorOf(past).details).toEqual([{ path: "expires_at", message: "must be later than now" }])
      expect((await make({ scopes: "*" })).status).toBe(400)
      for (const id of ["key_000000000000", "con_1", "x"]) {
        expect((await host.call("GET", `/v1/api-keys/${id}`)).status).toBe(404)
        expect((await host.call("DELETE", `/v1/api-keys/${id}`)).status).toBe(404)
        expect((await host.call("PATCH", `/v1/api-keys/${id}`, { body: { name: "n" } })).status).toBe(404)
      }
      const theirs = await ok(make({ name: "b's", scopes: "*" }, KEY_B), 201)
      expect((await host.call("DELETE", `/v1/api-keys/${theirs.body.id}`)).status).toBe(404)
      expect((await host.call("PATCH", `/v1/api-keys/${theirs.body.id}`, { body: { name: "mine" } })).status).toBe(404)
      expect((await host.call("GET", "/v1/contacts", { key: theirs.body.key })).status).toBe(200)
    })

    it("a key grants only scopes it holds: 403 forbidden naming the one it lacks", async () => {
      // BOOT (ws_c) holds keys:manage, contacts:read, contacts:write and events:read.
      const lacking = await make({ name: "deals", scopes: ["contacts:read", "deals:read"] }, BOOT)
      expect(lacking.status).toBe(403)
      expect(errorOf(lacking)).toMatchObject({ code: "forbidden", details: [{ scope: "deals:read" }] })
      const everything = await make({ name: "all", scopes: "*" }, BOOT)
      expect(errorOf(everything).details[0]!.scope).toBe("*")
      const reader = await ok(make({ name: "reader", scopes: ["contacts:read"] }, BOOT), 201)
      const widened = await host.call("PATCH", `/v1/api-keys/${reader.body.id}`, {
        key: BOOT,
        body: { scopes: ["contacts:read", "trash:manage"] }
      })
      expect(widened.status).toBe(403)
      expect(errorOf(widened).details[0]!.scope).toBe("trash:manage")
      // A stored key that manages keys hands out what it holds, and no more.
      const manager = await ok(make({ name: "manager", scopes: ["keys:manage", "contacts:read"] }, BOOT), 201)
      const sub = await make({ name: "sub", scopes: ["contacts:read"] }, manager.body.key)
      expect(sub.status).toBe(201)
      expect((await make({ name: "sub", scopes: ["contacts:write"] }, manager.body.key)).status).toBe(403)
    })

    it("the workspace's last key that may manage keys for good cannot be revoked, lose keys:manage or be given an expiry", async () => {
      const first = await ok(make({ name: "first admin", scopes: ["keys:manage", "contacts:read"] }, BOOT), 201)
      // Keys of ws_c made by the tests before may manage keys too: revoke them first, as the configured key.
      for (const other of (await ok(host.call("GET", "/v1/api-keys", { key: BOOT }))).body.data) {
        if (other.id !== first.body.id && other.revoked_at === null)
          await ok(host.call("DELETE", `/v1/api-keys/${other.id}`, { key: BOOT }), 204)
      }
      const admin = first.body.key as string
      const self = `/v1/api-keys/${first.body.id}`
      const revoke = await host.call("DELETE", self, { key: admin })
      expect(revoke.status).toBe(409)
      expect(errorOf(revoke).message).toContain("last key that may manage keys")
      const demote = await host.call("PATCH", self, { key: admin, body: { scopes: ["contacts:read"] } })
      expect(demote.status).toBe(409)
      expect(errorOf(demote).details[0]).toMatchObject({ path: "scopes", id: first.body.id })
      const expire = await host.call("PATCH", self, { key: admin, body: { expires_at: new Date(Date.now() + 86_400_000).toISOString() } })
      expect(expire.status).toBe(409)
      expect(errorOf(expire).details[0]!.path).toBe("expires_at")
      // Still whole: it manages keys.
      expect((await ok(host.call("GET", self, { key: admin }))).body).toMatchObject({
        scopes: ["keys:manage", "contacts:read"],
        expires_at: null
      })

      // A second manager that expires is no heir; one that does not expire is.
      const expiring = await ok(
        make({ name: "temp", scopes: ["keys:manage"], expires_at: new Date(Date.now() + 86_400_000).toISOString() }, admin),
        201
      )
      expect((await host.call("DELETE", self, { key: admin })).status).toBe(409)
      await ok(host.call("DELETE", `/v1/api-keys/${expiring.body.id}`, { key: admin }), 204)
      const heir = await ok(make({ name: "heir", scopes: ["keys:manage"] }, admin), 201)
      await ok(host.call("DELETE", self, { key: admin }), 204)
      const heirSelf = `/v1/api-keys/${heir.body.id}`
      expect((await host.call("DELETE", heirSelf, { key: heir.body.key })).status).toBe(409)
      // The key the host was given for ws_c cannot be revoked over the API, so it may revoke the last stored one.
      await ok(host.call("DELETE", heirSelf, { key: BOOT }), 204)
    })

    it("an expired key is 401 with its own message, unlike an unknown one", async () => {
      const expires = new Date(Date.now() + 1_500).toISOString()
      const created = await ok(make({ name: "short", scopes: ["contacts:read"], expires_at: expires }), 201)
      expect(created.body.expires_at).toBe(expires)
      const key = created.body.key as string
      // Works until it expires (on a loaded machine the first call may already be late: then only the refusal is checked).
      const early = await host.call("GET", "/v1/contacts", { key })
      if (Date.now() < Date.parse(expires) - 200) expect(early.status).toBe(200)
      const expired = await eventually(
        () => host.call("GET", "/v1/contacts", { key }),
        (answer) => answer.status === 401,
        "the key to expire"
      )
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expires))
      expect(errorOf(expired)).toMatchObject({ code: "unauthorized", message: `this API key expired at ${expires}` })
      const unknown = await host.call("GET", "/v1/contacts", { key: "dsk_no_such_key" })
      expect(errorOf(unknown).message).toBe("unknown API key")
      // It cannot be revived.
      expect((await host.call("PATCH", `/v1/api-keys/${created.body.id}`, { body: { expires_at: null } })).status).toBe(409)
    })

    it("keeps last_used_at off the request path, at most once a minute per key", async () => {
      const first = await ok(make({ name: "used", scopes: ["contacts:read"] }), 201)
      const id = first.body.id as string
      expect(first.body.last_used_at).toBeNull()
      const before = new Date().toISOString()
      expect((await host.call("GET", "/v1/contacts", { key: first.body.key })).status).toBe(200)
      const after = new Date().toISOString()
      const used = await eventually(
        async () => (await ok(host.call("GET", `/v1/api-keys/${id}`))).body.last_used_at as string | null,
        (at) => at !== null,
        "last_used_at to be written"
      )
      expect(used! >= before && used! <= after).toBe(true)
      // Used again within the minute: not written again. A second key's first use, written after it,
      // shows a write of this host's uses has happened since.
      expect((await host.call("GET", "/v1/contacts", { key: first.body.key })).status).toBe(200)
      const second = await ok(make({ name: "marker", scopes: ["contacts:read"] }), 201)
      expect((await host.call("GET", "/v1/contacts", { key: second.body.key })).status).toBe(200)
      await eventually(
        async () => (await ok(host.call("GET", `/v1/api-keys/${second.body.id}`))).body.last_used_at,
        (at) => at !== null,
        "the marker key's use to be written"
      )
      const listed = (await ok(host.call("GET", "/v1/api-keys"))).body.data.find((k: { id: string }) => k.id === id)
      expect(listed.last_used_at).toBe(used)
      // Keys the host was given have no record and no last use: only stored keys are listed.
      expect((await ok(host.call("GET", "/v1/api-keys"))).body.data.map((k: { id: string }) => k.id)).not.toContain(idOf(KEY_A))
    })

    it("the keys' events are in the workspace's change feed, without the key or its digest", async () => {
      const created = await ok(make({ name: "fed", scopes: ["contacts:read"] }, KEY_B), 201)
      const key = created.body.key as string
      await ok(host.call("PATCH", `/v1/api-keys/${created.body.id}`, { key: KEY_B, body: { name: "fed again", scopes: "*" } }))
      await ok(host.call("DELETE", `/v1/api-keys/${created.body.id}`, { key: KEY_B }), 204)
      const feed = await eventually(
        () => ok(host.call("GET", "/v1/events?types=api_key.*&limit=100", { key: KEY_B })),
        (answer) => answer.body.data.filter((e: { data: any }) => e.data.api_key?.id === created.body.id).length === 3,
        "the three key events in the feed"
      )
      const events = feed.body.data.filter((e: { data: any }) => e.data.api_key.id === created.body.id)
      expect(events.map((e: { type: string }) => e.type)).toEqual(["api_key.created", "api_key.updated", "api_key.revoked"])
      expect(events.every((e: { workspace_id: string }) => e.workspace_id === "ws_b")).toBe(true)
      expect(Object.keys(events[0].data.api_key)).toEqual(RECORD_KEYS)
      expect(events[0].data.api_key).toMatchObject({ name: "fed", scopes: ["contacts:read"], revoked_at: null })
      expect(events[1].data).toMatchObject({ api_key: { name: "fed again", scopes: "*" }, changed_fields: ["name", "scopes"] })
      expect(typeof events[2].data.api_key.revoked_at).toBe("string")
      expect(feed.text).not.toContain(key)
      expect(feed.text).not.toContain(sha256(key))
      const one = await ok(host.call("GET", `/v1/events/${events[0].id}`, { key: KEY_B }))
      expect(one.body).toEqual(events[0])
      // Not another workspace's.
      expect((await host.call("GET", `/v1/events/${events[0].id}`)).status).toBe(404)
      const theirs = await ok(host.call("GET", "/v1/events?types=api_key.*&limit=100"))
      expect(theirs.body.data.some((e: { data: any }) => e.data.api_key?.id === created.body.id)).toBe(false)
    })

    it("every write's history entry names the key that made it, never the key itself", async () => {
      const writer = await ok(make({ name: "writer", scopes: "*" }), 201)
      const key = writer.body.key as string
      const as = (method: string, path: string, body?: unknown, status = 200) =>
        ok(host.call(method, path, { key, ...(body === undefined ? {} : { body }) }), status)
      const contact = await as("POST", "/v1/contacts", { email: `audit-${Date.now()}@example.com` }, 201)
      await as("PATCH", `/v1/contacts/${contact.body.id}`, { title: "CFO" })
      await ok(host.call("PATCH", `/v1/contacts/${contact.body.id}`, { body: { title: "CEO" } }))
      const contactHistory = await ok(host.call("GET", `/v1/contacts/${contact.body.id}/history`))
      expect(contactHistory.body.data.map((e: { actor: unknown }) => e.actor)).toEqual([
        { api_key_id: writer.body.id },
        { api_key_id: writer.body.id },
        { api_key_id: idOf(KEY_A) }
      ])

      // Every record type, every kind of write: creates, updates, stage moves, deletes, restores, batches.
      const company = await as("POST", "/v1/companies", { name: `Audit ${Date.now()}` }, 201)
      await as("PATCH", `/v1/companies/${company.body.id}`, { domain: "audit.example" })
      const pipeline = (await as("GET", "/v1/pipelines")).body.data[0]
      const deal = await as("POST", "/v1/deals", { name: "Audit deal", pipeline_id: pipeline.id, contact_ids: [contact.body.id] }, 201)
      await as("PUT", `/v1/deals/${deal.body.id}/stage`, { stage_id: pipeline.stages[1].id })
      await as("DELETE", `/v1/deals/${deal.body.id}`, undefined, 204)
      await as("POST", `/v1/deals/${deal.body.id}/restore`)
      const activity = await as("POST", "/v1/activities", { type: "note", subject: "Audit", contact_ids: [contact.body.id] }, 201)
      const batch = await as("POST", "/v1/contacts/batch", { operations: [{ op: "update", id: contact.body.id, data: { title: "COO" } }] })
      expect(batch.body.results.map((r: { status: number }) => r.status)).toEqual([200])
      for (const path of [
        `/v1/companies/${company.body.id}`,
        `/v1/deals/${deal.body.id}`,
        `/v1/activities/${activity.body.id}`,
        `/v1/contacts/${contact.body.id}`
      ]) {
        const history = await ok(host.call("GET", `${path}/history`))
        const entries = history.body.data as Array<{ type: string; actor: unknown }>
        const mine = path.startsWith("/v1/contacts") ? entries.filter((_, i) => i !== 2) : entries
        expect(mine.length, path).toBeGreaterThan(path.startsWith("/v1/activities") ? 0 : 1)
        for (const entry of mine) expect(entry.actor, `${path} ${entry.type}`).toEqual({ api_key_id: writer.body.id })
        expect(history.text).not.toContain(key)
        expect(history.text).not.toContain(sha256(key))
      }
      const dealTypes = (await ok(host.call("GET", `/v1/deals/${deal.body.id}/history`))).body.data.map((e: { type: string }) => e.type)
      expect(dealTypes).toEqual(["deal.created", "deal.stage_changed", "deal.deleted", "deal.restored"])
    })

    it("under an Idempotency-Key a key is made once, and its answer is never given again", async () => {
      const headers = { "idempotency-key": `make-key-${Date.now()}` }
      const body = { name: "once", scopes: ["contacts:read"] }
      const first = await ok(make(body, KEY_A, headers), 201)
      const again = await make(body, KEY_A, headers)
      expect(again.status).toBe(409)
      expect(errorOf(again).code).toBe("idempotency_conflict")
      expect(errorOf(again).message).toContain(first.body.id)
      expect(again.text).not.toContain(first.body.key)
      const named = (await ok(host.call("GET", "/v1/api-keys"))).body.data.filter((k: { name: string }) => k.name === "once")
      expect(named).toHaveLength(1)
    })
  })
}
