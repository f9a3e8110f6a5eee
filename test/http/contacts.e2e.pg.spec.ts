import { describe, expect, it } from "vitest"
import { errorOf, hostFor, STORAGES } from "./client.js"

describe.each(STORAGES)("%s storage", (storage) => {
  const host = hostFor(storage)

  const createContact = async (body: Record<string, unknown>) => {
    const answer = await host.call("POST", "/v1/contacts", { body })
    expect(answer.status).toBe(201)
    return answer
  }

  describe("contacts over HTTP", () => {
    it("creates with 201, Location and ETag, and reads it back", async () => {
      const created = await createContact({ email: "ada@example.com", first_name: "Ada" })
      const id = created.body.id as string
      expect(id).toMatch(/^con_/)
      expect(created.headers.get("location")).toBe(`/v1/contacts/${id}`)
      expect(created.headers.get("etag")).toBe('"1"')
      expect(created.body).toMatchObject({ email: "ada@example.com", first_name: "Ada", last_name: null, deal_ids: [], company_ids: [] })

      const read = await host.call("GET", `/v1/contacts/${id}`)
      expect(read.status).toBe(200)
      expect(read.headers.get("etag")).toBe('"1"')
      expect(read.body).toEqual(created.body)
    })

    it("expands deals and activities, and rejects an unknown expand value", async () => {
      const contact = (await createContact({ email: "expand@example.com" })).body
      const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
      const deal = await host.call("POST", "/v1/deals", { body: { name: "Big one", pipeline_id: pipeline.id, contact_ids: [contact.id] } })
      expect(deal.status).toBe(201)
      const note = await host.call("POST", "/v1/activities", {
        body: { type: "note", subject: "Met at the fair", contact_ids: [contact.id] }
      })
      expect(note.status, note.text).toBe(201)

      const expanded = await host.call("GET", `/v1/contacts/${contact.id}?expand=deals,activities`)
      expect(expanded.status).toBe(200)
      expect(expanded.body.deals.map((d: { id: string }) => d.id)).toEqual([deal.body.id])
      expect(expanded.body).not.toHaveProperty("deal_ids")
      // The activity records linked to it; what the log recorded is at /history.
      expect(expanded.body.activities).toEqual([note.body])

      const wrong = await host.call("GET", `/v1/contacts/${contact.id}?expand=friends`)
      expect(wrong.status).toBe(400)
      expect(errorOf(wrong).code).toBe("validation_error")
    })

    it("patches only the given fields, with If-Match, and a stale If-Match is 412 and changes nothing", async () => {
      const { body: contact } = await createContact({ email: "grace@example.com", first_name: "Grace" })
      const patched = await host.call("PATCH", `/v1/contacts/${contact.id}`, {
        body: { last_name: "Hopper" },
        headers: { "if-match": '"1"' }
      })
      expect(patched.status).toBe(200)
      expect(patched.headers.get("etag")).toBe('"2"')
      expect(patched.body).toMatchObject({ first_name: "Grace", last_name: "Hopper" })

      const stale = await host.call("PATCH", `/v1/contacts/${contact.id}`, {
        body: { first_name: "Changed" },
        headers: { "if-match": '"1"' }
      })
      expect(stale.status).toBe(412)
      expect(errorOf(stale).code).toBe("precondition_failed")
      const after = await host.call("GET", `/v1/contacts/${contact.id}`)
      expect(after.body.first_name).toBe("Grace")
      expect(after.headers.get("etag")).toBe('"2"')

      const staleDelete = await host.call("DELETE", `/v1/contacts/${contact.id}`, { headers: { "if-match": '"1"' } })
      expect(staleDelete.status).toBe(412)
      expect((await host.call("GET", `/v1/contacts/${contact.id}`)).status).toBe(200)

      const malformed = await host.call("PATCH", `/v1/contacts/${contact.id}`, { body: {}, headers: { "if-match": "yesterday" } })
      expect(malformed.status).toBe(400)
      expect(errorOf(malformed).details[0]?.path).toBe("If-Match")

      const star = await host.call("PATCH", `/v1/contacts/${contact.id}`, { body: { title: "Admiral" }, headers: { "if-match": "*" } })
      expect(star.status).toBe(200)
    })

    it("deletes with 204 and an empty body, lists it in the trash, and restores it", async () => {
      const { body: contact } = await createContact({ email: "deleted@example.com" })
      const deleted = await host.call("DELETE", `/v1/contacts/${contact.id}`)
      expect(deleted.status).toBe(204)
      expect(deleted.text).toBe("")

      const gone = await host.call("GET", `/v1/contacts/${contact.id}`)
      expect(gone.status).toBe(404)
      expect(errorOf(gone).code).toBe("not_found")

      const trash = await host.call("GET", "/v1/trash?type=contact")
      expect(trash.status).toBe(200)
      const item = trash.body.data.find((i: { id: string }) => i.id === contact.id)
      expect(item).toMatchObject({ type: "contact", id: contact.id, record: { email: "deleted@example.com" } })
      expect(typeof item.purge_at).toBe("string")

      const restored = await host.call("POST", `/v1/contacts/${contact.id}/restore`)
      expect(restored.status).toBe(200)
      expect(restored.headers.get("etag")).toMatch(/^"\d+"$/)
      expect(restored.body).toEqual(contact)
      expect((await host.call("GET", `/v1/contacts/${contact.id}`)).status).toBe(200)
    })

    it("answers 409 conflict with the existing id for a taken email", async () => {
      const { body: first } = await createContact({ email: "taken@example.com" })
      const second = await host.call("POST", "/v1/contacts", { body: { email: "TAKEN@example.com" } })
      expect(second.status).toBe(409)
      const error = errorOf(second)
      expect(error.code).toBe("conflict")
      expect(error.details.some((d) => d.id === first.id)).toBe(true)
    })

    describe("on a store of its own", () => {
      const other = hostFor(storage)

      it("lists with limit and cursor, visiting every contact once", async () => {
        const emails = ["p1@example.com", "p2@example.com", "p3@example.com", "p4@example.com", "p5@example.com"]
        for (const email of emails) {
          expect((await other.call("POST", "/v1/contacts", { body: { email } })).status).toBe(201)
        }
        const seen: Array<string> = []
        let cursor: string | null = null
        do {
          const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
          const page = await other.call("GET", `/v1/contacts?limit=2&sort=email${query}`)
          expect(page.status).toBe(200)
          expect(page.body.data.length).toBeLessThanOrEqual(2)
          seen.push(...page.body.data.map((c: { email: string }) => c.email))
          cursor = page.body.next_cursor
        } while (cursor !== null)
        expect(seen).toEqual(emails)
      })
    })

    it("searches and filters", async () => {
      await createContact({ email: "webinar.lead@example.com", first_name: "Webby", source: "webinar" })
      const bySearch = await host.call("GET", `/v1/contacts?search=webb`)
      expect(bySearch.body.data.map((c: { first_name: string }) => c.first_name)).toEqual(["Webby"])
      const filter = encodeURIComponent(JSON.stringify({ source: "webinar" }))
      const byFilter = await host.call("GET", `/v1/contacts?filter=${filter}`)
      expect(byFilter.status).toBe(200)
      expect(byFilter.body.data.map((c: { email: string }) => c.email)).toEqual(["webinar.lead@example.com"])
    })

    it("rejects bad list parameters with validation_error and the offending path", async () => {
      const badFilter = encodeURIComponent(JSON.stringify({ $or: [{ source: "x" }, { created_at: { $gt: 5 } }] }))
      const filtered = await host.call("GET", `/v1/contacts?filter=${badFilter}`)
      expect(filtered.status).toBe(400)
      expect(errorOf(filtered).details[0]?.path).toBe("filter.$or[1].created_at.$gt")

      const unknownField = await host.call("GET", `/v1/contacts?filter=${encodeURIComponent('{"shoe_size":42}')}`)
      expect(unknownField.status).toBe(400)
      expect(errorOf(unknownField).details[0]?.path).toBe("filter.shoe_size")

      for (const limit of ["0", "101", "ten"]) {
        const answer = await host.call("GET", `/v1/contacts?limit=${limit}`)
        expect(answer.status).toBe(400)
        expect(errorOf(answer).details.map((d) => d.path)).toContain("limit")
      }

      const cursor = await host.call("GET", "/v1/contacts?cursor=not-a-cursor")
      expect(cursor.status).toBe(400)
      expect(errorOf(cursor).details[0]?.path).toBe("cursor")

      const sort = await host.call("GET", "/v1/contacts?sort=-shoe_size")
      expect(sort.status).toBe(400)
      expect(errorOf(sort).details[0]?.path).toBe("sort")

      const unknownParam = await host.call("GET", "/v1/contacts?colour=red")
      expect(unknownParam.status).toBe(400)
      expect(errorOf(unknownParam).details[0]?.path).toBe("colour")

      const twice = await host.call("GET", "/v1/contacts?limit=5&limit=6")
      expect(twice.status).toBe(400)
      expect(errorOf(twice).details[0]?.path).toBe("limit")
    })

    it("rejects an unknown body field, a missing email and an invalid one", async () => {
      const unknown = await host.call("POST", "/v1/contacts", { body: { email: "x@example.com", shoe_size: 42 } })
      expect(unknown.status).toBe(400)
      expect(errorOf(unknown).details[0]?.path).toBe("shoe_size")

      const missing = await host.call("POST", "/v1/contacts", { body: { first_name: "Nobody" } })
      expect(missing.status).toBe(400)
      expect(errorOf(missing).details[0]?.path).toBe("email")

      const invalid = await host.call("POST", "/v1/contacts", { body: { email: "not an address" } })
      expect(invalid.status).toBe(400)
      expect(errorOf(invalid).details[0]?.path).toBe("email")

      const notObject = await host.call("POST", "/v1/contacts", { body: [1, 2] })
      expect(notObject.status).toBe(400)
      expect(errorOf(notObject).code).toBe("validation_error")
    })

    it("answers 404 for unknown ids on every record operation", async () => {
      const id = "con_00000000000000000000000000"
      for (const [method, path, body] of [
        ["GET", `/v1/contacts/${id}`, undefined],
        ["PATCH", `/v1/contacts/${id}`, { first_name: "X" }],
        ["DELETE", `/v1/contacts/${id}`, undefined],
        ["POST", `/v1/contacts/${id}/restore`, undefined]
      ] as const) {
        const answer = await host.call(method, path, body === undefined ? {} : { body })
        expect(answer.status, `${method} ${path}`).toBe(404)
        expect(errorOf(answer).code).toBe("not_found")
      }
    })
  })
})
