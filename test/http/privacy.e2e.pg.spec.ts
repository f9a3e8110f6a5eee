import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import { eventually, type Receiver, startReceiver } from "../webhooks/receiver.js"
import { errorOf, hostFor, KEY_A, KEY_B, STORAGES } from "./client.js"

// A person's data on request (API.md, "Privacy: export and erasure"; issue 33, items 3 and 4), over
// a real host on each storage: GET /v1/contacts/:id/export of a live contact and of one in the
// trash, POST /v1/contacts/:id/erase of either with the counts it answers, then 404 for it
// everywhere (erasing it again too), and 403 for a key without privacy:manage before anything
// happens. test/http/erasure.properties.pg.spec.ts searches every answer and the whole storage.

const PRIVACY_KEY = "key_privacy_manage_0123456789"
const CONTACTS_KEY = "key_contacts_rw_0123456789"
const API_KEYS = [
  `ws_a:${KEY_A}`,
  `ws_b:${KEY_B}`,
  `ws_a:${PRIVACY_KEY}@privacy:manage`,
  `ws_a:${CONTACTS_KEY}@contacts:read+contacts:write+deals:read+activities:read`
].join(",")

type Json = Record<string, any>

for (const storage of STORAGES) {
  describe(`a person's data on ${storage} storage`, () => {
    const host = hostFor(storage, { apiKeys: API_KEYS, webhooks: { allowInsecure: true } })
    let receiver: Receiver
    beforeAll(async () => {
      receiver = await startReceiver()
    })
    afterAll(() => receiver.close())

    const ok = async (method: string, path: string, body?: unknown, key?: string): Promise<Json> => {
      const answer = await host.call(method, path, { ...(body === undefined ? {} : { body }), ...(key === undefined ? {} : { key }) })
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300)
      return answer.body
    }

    /** A person with everything around them: a custom field, a company, an update, a deal, two activities. */
    const person = async (email: string) => {
      const company = await ok("POST", "/v1/companies", { name: `Company of ${email}` })
      const contact = await ok("POST", "/v1/contacts", {
        email,
        first_name: "Petra",
        last_name: "Personal",
        phone: "+49 30 555 0100",
        company_ids: [company.id]
      })
      await ok("PATCH", `/v1/contacts/${contact.id}`, { title: "Head of secrets" })
      const pipeline = (await ok("GET", "/v1/pipelines")).data[0]
      const other = await ok("POST", "/v1/contacts", { email: email.replace("@", ".other@") })
      const deal = await ok("POST", "/v1/deals", {
        name: `Deal of ${email}`,
        pipeline_id: pipeline.id,
        contact_ids: [contact.id, other.id]
      })
      const call = await ok("POST", "/v1/activities", { type: "call", subject: "A call", contact_ids: [contact.id, other.id] })
      const note = await ok("POST", "/v1/activities", { type: "note", subject: "A note", contact_ids: [contact.id] })
      return { company, contact, other, deal, call, note }
    }

    const historyOf = async (id: string) => {
      const entries: Array<Json> = []
      for (let cursor: string | null = null; ; ) {
        const page: Json = await ok("GET", `/v1/contacts/${id}/history?limit=1${cursor === null ? "" : `&cursor=${cursor}`}`)
        entries.push(...page.data)
        cursor = page.next_cursor
        if (cursor === null) return entries
      }
    }

    it("exports a live contact whole: itself as GET shows it, its whole history, its activities, deals, companies", async () => {
      await ok("POST", "/v1/custom-fields", { object: "contact", key: "nickname", label: "Nickname", type: "text" })
      const { call, company, contact, deal, note } = await person("export.live@example.com")
      await ok("PATCH", `/v1/contacts/${contact.id}`, { nickname: "Pet" })
      const exported = await host.call("GET", `/v1/contacts/${contact.id}/export`, { key: PRIVACY_KEY })
      expect(exported.status, exported.text).toBe(200)
      const body = exported.body
      expect(Object.keys(body)).toEqual([
        "contact",
        "deleted_at",
        "history",
        "activities",
        "deal_ids",
        "company_ids",
        "delivery_ids",
        "exported_at"
      ])
      expect(body.contact).toEqual(await ok("GET", `/v1/contacts/${contact.id}`))
      expect(body.deleted_at).toBeNull()
      expect(body.history).toEqual(await historyOf(contact.id))
      expect(body.history.map((entry: Json) => entry.type)).toEqual(["contact.created", "contact.updated", "contact.updated"])
      expect(body.activities.map((activity: Json) => activity.id)).toEqual([call.id, note.id])
      expect(body.activities[0]).toEqual(await ok("GET", `/v1/activities/${call.id}`))
      expect(body.deal_ids).toEqual([deal.id])
      expect(body.company_ids).toEqual([company.id])
      expect(body.delivery_ids).toEqual([])
      expect(Date.parse(body.exported_at)).not.toBeNaN()
    })

    it("exports a contact in the trash, with when it went there and the links as stored", async () => {
      const { call, contact, deal } = await person("export.trashed@example.com")
      await ok("DELETE", `/v1/contacts/${contact.id}`)
      const body = await ok("GET", `/v1/contacts/${contact.id}/export`, undefined, PRIVACY_KEY)
      expect(body.deleted_at).toEqual(expect.any(String))
      expect(body.contact).toMatchObject({ id: contact.id, email: "export.trashed@example.com", title: "Head of secrets" })
      expect(body.history.map((entry: Json) => entry.type)).toEqual(["contact.created", "contact.updated", "contact.deleted"])
      expect(body.deal_ids).toEqual([deal.id])
      // The activity's GET leaves the contact in the trash out; the export keeps the link as stored.
      expect((await ok("GET", `/v1/activities/${call.id}`)).contact_ids).not.toContain(contact.id)
      expect(body.activities.find((activity: Json) => activity.id === call.id).contact_ids).toContain(contact.id)
    })

    it("needs privacy:manage: 403 naming it, also for a key that reads and writes contacts, before anything happens", async () => {
      const { contact } = await person("forbidden@example.com")
      for (const [method, path] of [
        ["GET", `/v1/contacts/${contact.id}/export`],
        ["POST", `/v1/contacts/${contact.id}/erase`]
      ] as const) {
        const refused = await host.call(method, path, { key: CONTACTS_KEY })
        expect(refused.status, refused.text).toBe(403)
        expect(errorOf(refused).code).toBe("forbidden")
        expect(errorOf(refused).details).toEqual([expect.objectContaining({ scope: "privacy:manage" })])
      }
      // The same key reads the contact: nothing was erased.
      expect((await ok("GET", `/v1/contacts/${contact.id}`, undefined, CONTACTS_KEY)).email).toBe("forbidden@example.com")
      // A key with privacy:manage alone does nothing else.
      expect((await host.call("GET", `/v1/contacts/${contact.id}`, { key: PRIVACY_KEY })).status).toBe(403)
    })

    it("erases a live contact: 200 with the counts, then 404 everywhere, erasing it again too", async () => {
      const webhook = await ok("POST", "/v1/webhooks", { url: receiver.url, events: ["*"] })
      // The tests after this one count no deliveries: its webhook goes whatever this test comes to.
      onTestFinished(() => host.call("DELETE", `/v1/webhooks/${webhook.id}`).then(() => undefined))
      const { call, company, contact, deal, note, other } = await person("erase.live@example.com")
      await receiver.waitFor(
        (received) => received.filter((r) => r.json?.data?.contact?.id === contact.id).length === 2,
        "the contact's two deliveries"
      )
      const erased = await host.call("POST", `/v1/contacts/${contact.id}/erase`, { key: PRIVACY_KEY })
      expect(erased.status, erased.text).toBe(200)
      expect(erased.body).toEqual({
        id: contact.id,
        erased_at: expect.any(String),
        redacted: { events: 2, feed_entries: 2, deliveries: 2, stored_answers: 0 },
        unlinked: { deals: 1, companies: 1, activities: 1 },
        erased_activities: 1
      })

      for (const [method, path] of [
        ["GET", `/v1/contacts/${contact.id}`],
        ["GET", `/v1/contacts/${contact.id}/history`],
        ["GET", `/v1/contacts/${contact.id}/export`],
        ["POST", `/v1/contacts/${contact.id}/restore`],
        ["POST", `/v1/contacts/${contact.id}/erase`],
        ["POST", `/v1/contacts/${contact.id}/erase`],
        ["GET", `/v1/activities/${note.id}`]
      ] as const) {
        const privacy = path.endsWith("/export") || path.endsWith("/erase")
        const gone = await host.call(method, path, { key: privacy ? PRIVACY_KEY : KEY_A })
        expect(gone.status, `${method} ${path}: ${gone.text}`).toBe(404)
        expect(errorOf(gone).code).toBe("not_found")
      }
      // The records around it keep its id in their history only.
      expect((await ok("GET", `/v1/deals/${deal.id}`)).contact_ids).toEqual([other.id])
      expect((await ok("GET", `/v1/activities/${call.id}`)).contact_ids).toEqual([other.id])
      expect((await ok("GET", `/v1/companies/${company.id}`)).contact_ids).toEqual([])
      const dealHistory = (await ok("GET", `/v1/deals/${deal.id}/history`)).data
      expect(dealHistory.at(-1)).toMatchObject({
        type: "deal.contact_unlinked",
        actor: expect.anything(),
        changes: [{ field: "contact_ids", from: [contact.id, other.id], to: [other.id] }]
      })
      // Its deliveries' payloads are redacted; the tombstone is announced with its id alone.
      const deliveries = (await ok("GET", `/v1/webhooks/${webhook.id}/deliveries?limit=100`)).data
      await receiver.waitFor(
        (received) => received.some((r) => r.json?.type === "contact.erased" && r.json?.data?.id === contact.id),
        "the contact.erased delivery"
      )
      expect(receiver.received.find((r) => r.json?.type === "contact.erased")!.json.data).toEqual({ id: contact.id })
      expect(deliveries.filter((d: Json) => d.event_type === "contact.erased")).toHaveLength(1)
      // The feed shows its events redacted and the tombstone.
      const feed = await eventually(async () => {
        const page = await ok("GET", "/v1/events?types=contact.*&limit=1000")
        return page.data.some((e: Json) => e.type === "contact.erased" && e.data.id === contact.id) ? page.data : undefined
      }, "the tombstone in the feed")
      expect(feed.filter((e: Json) => e.type === "contact.erased" && e.data.id === contact.id).map((e: Json) => e.data)).toEqual([
        { id: contact.id }
      ])
      expect(JSON.stringify(feed)).not.toContain("erase.live@example.com")
      expect(JSON.stringify(feed)).toContain("erase.live.other@example.com")
      // The email is free again.
      expect((await ok("POST", "/v1/contacts", { email: "erase.live@example.com" })).email).toBe("erase.live@example.com")
    })

    it("erases a contact in the trash, and answers a retry under the same Idempotency-Key with the same counts", async () => {
      const { contact, deal } = await person("erase.trashed@example.com")
      await ok("DELETE", `/v1/deals/${deal.id}`)
      await ok("DELETE", `/v1/contacts/${contact.id}`)
      const headers = { "idempotency-key": `erase-${contact.id}` }
      const erased = await host.call("POST", `/v1/contacts/${contact.id}/erase`, { key: PRIVACY_KEY, headers })
      expect(erased.status, erased.text).toBe(200)
      expect(erased.body).toMatchObject({
        id: contact.id,
        redacted: { events: 3, feed_entries: 3, deliveries: 0, stored_answers: 0 },
        unlinked: { deals: 1, companies: 1, activities: 1 },
        erased_activities: 1
      })
      const again = await host.call("POST", `/v1/contacts/${contact.id}/erase`, { key: PRIVACY_KEY, headers })
      expect(again.status).toBe(200)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.body).toEqual(erased.body)
      expect((await host.call("POST", `/v1/contacts/${contact.id}/erase`, { key: PRIVACY_KEY })).status).toBe(404)
      expect((await ok("GET", "/v1/trash?type=contact")).data.map((t: Json) => t.id)).not.toContain(contact.id)
      // The deal in the trash lost the link too: restored, it names the other contact only.
      const restored = await ok("POST", `/v1/deals/${deal.id}/restore`)
      expect(restored.contact_ids).toHaveLength(1)
      expect(restored.contact_ids).not.toContain(contact.id)
    })

    it("forgets or redacts the answers stored under an Idempotency-Key that showed the contact", async () => {
      const body = { email: "stored.answer@example.com", first_name: "Storedfirst" }
      const created = await host.call("POST", "/v1/contacts", { body, headers: { "idempotency-key": "create-stored-answer" } })
      expect(created.status).toBe(201)
      const batch = { operations: [{ op: "create", data: { email: "batched@example.com", first_name: "Batchedfirst" } }] }
      const batched = await host.call("POST", "/v1/contacts/batch", { body: batch, headers: { "idempotency-key": "batch-stored-answer" } })
      expect(batched.status, batched.text).toBe(200)
      const erased = await ok("POST", `/v1/contacts/${created.body.id}/erase`, undefined, PRIVACY_KEY)
      expect(erased.redacted.stored_answers).toBe(1)
      const batchedId = batched.body.results[0].data.id
      expect((await ok("POST", `/v1/contacts/${batchedId}/erase`, undefined, PRIVACY_KEY)).redacted.stored_answers).toBe(1)
      // A retry of the create is answered from the record, which is gone; the batch's keeps its shape, without the person.
      const retried = await host.call("POST", "/v1/contacts", { body, headers: { "idempotency-key": "create-stored-answer" } })
      expect(retried.status, retried.text).toBe(404)
      const replayed = await host.call("POST", "/v1/contacts/batch", { body: batch, headers: { "idempotency-key": "batch-stored-answer" } })
      expect(replayed.status).toBe(200)
      expect(replayed.headers.get("idempotent-replayed")).toBe("true")
      expect(replayed.body.results).toEqual([{ ...batched.body.results[0], data: { id: batchedId, redacted: true } }])
    })

    it("is 404 for an unknown id and for another workspace's contact", async () => {
      const theirs = await host.call("POST", "/v1/contacts", { key: KEY_B, body: { email: "theirs@example.com" } })
      for (const id of ["con_nobody", theirs.body.id, "deal_not_a_contact"]) {
        for (const [method, path] of [
          ["GET", `/v1/contacts/${id}/export`],
          ["POST", `/v1/contacts/${id}/erase`]
        ] as const) {
          const answer = await host.call(method, path, { key: PRIVACY_KEY })
          expect(answer.status, `${method} ${path}`).toBe(404)
        }
      }
      expect((await host.call("GET", `/v1/contacts/${theirs.body.id}`, { key: KEY_B })).status).toBe(200)
    })
  })
}
