import { beforeAll, describe, expect, it } from "vitest"
import { errorOf, hostFor, STORAGES } from "./client.js"

describe.each(STORAGES)("%s storage", (storage) => {
  const host = hostFor(storage)
  let sales: { id: string; stages: Array<{ id: string; name: string; position: number }> }
  beforeAll(async () => {
    sales = (await host.call("GET", "/v1/pipelines")).body.data[0]
  })

  const stage = (name: string) => sales.stages.find((s) => s.name === name)!.id

  const createDeal = async (body: Record<string, unknown>) => {
    const answer = await host.call("POST", "/v1/deals", { body: { pipeline_id: sales.id, ...body } })
    expect(answer.status, answer.text).toBe(201)
    return answer
  }

  describe("pipelines over HTTP", () => {
    it("lists the default Sales pipeline, gets it, creates and patches one", async () => {
      expect(sales.stages.map((s) => s.name)).toEqual(["Lead", "Qualified", "Proposal", "Negotiation", "Won", "Lost"])
      const got = await host.call("GET", `/v1/pipelines/${sales.id}`)
      expect(got.status).toBe(200)
      expect(got.headers.get("etag")).toMatch(/^"\d+"$/)
      expect(got.body.id).toBe(sales.id)

      const created = await host.call("POST", "/v1/pipelines", {
        body: { name: "Partners", stages: [{ name: "Intro" }, { name: "Signed" }] }
      })
      expect(created.status).toBe(201)
      expect(created.headers.get("location")).toBe(`/v1/pipelines/${created.body.id}`)
      expect(created.body.stages.map((s: { name: string }) => s.name)).toEqual(["Intro", "Signed"])

      const patched = await host.call("PATCH", `/v1/pipelines/${created.body.id}`, {
        body: { name: "Partner deals" },
        headers: { "if-match": created.headers.get("etag")! }
      })
      expect(patched.status).toBe(200)
      expect(patched.body.name).toBe("Partner deals")

      const empty = await host.call("POST", "/v1/pipelines", { body: { name: "Empty", stages: [] } })
      expect(empty.status).toBe(400)
      expect(errorOf(empty).details[0]?.path).toMatch(/^stages/)

      const unknownParam = await host.call("GET", "/v1/pipelines?limit=5")
      expect(unknownParam.status).toBe(400)
    })
  })

  describe("deals over HTTP", () => {
    it("creates in the first stage, reads, patches and lists with deal filters", async () => {
      const created = await createDeal({ name: "Acme renewal", value: 5000, currency: "EUR", expected_close_date: "2026-12-31" })
      expect(created.body).toMatchObject({ stage_id: stage("Lead"), status: "open", value: 5000 })
      expect(created.headers.get("location")).toBe(`/v1/deals/${created.body.id}`)
      expect(created.headers.get("etag")).toBe('"1"')

      const got = await host.call("GET", `/v1/deals/${created.body.id}`)
      expect(got.body).toEqual(created.body)

      const patched = await host.call("PATCH", `/v1/deals/${created.body.id}`, { body: { value: 7000 } })
      expect(patched.status).toBe(200)
      expect(patched.body.value).toBe(7000)

      await createDeal({ name: "Small fry", value: 10 })
      const listed = await host.call("GET", `/v1/deals?value_min=1000&pipeline_id=${sales.id}&sort=-value`)
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((d: { name: string }) => d.name)).toEqual(["Acme renewal"])

      const byDate = await host.call("GET", "/v1/deals?close_date_from=2026-12-01&close_date_to=2026-12-31")
      expect(byDate.body.data.map((d: { name: string }) => d.name)).toEqual(["Acme renewal"])

      const badStatus = await host.call("GET", "/v1/deals?status=maybe")
      expect(badStatus.status).toBe(400)
      expect(errorOf(badStatus).details[0]?.path).toBe("status")
    })

    it("moves stages with PUT, returns the timeline entry, and lists the timeline oldest first", async () => {
      const { body: deal } = await createDeal({ name: "Mover" })
      const moved = await host.call("PUT", `/v1/deals/${deal.id}/stage`, {
        body: { stage_id: stage("Qualified"), reason: "call went well" }
      })
      expect(moved.status).toBe(200)
      expect(moved.headers.get("etag")).toBe('"2"')
      expect(moved.body.deal.stage_id).toBe(stage("Qualified"))
      expect(moved.body.timeline_entry).toMatchObject({
        deal_id: deal.id,
        from_stage_id: stage("Lead"),
        to_stage_id: stage("Qualified"),
        reason: "call went well"
      })

      const again = await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Qualified") } })
      expect(again.status).toBe(200)
      expect(again.body.timeline_entry).toBeNull()

      const viaPatch = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { stage_id: stage("Proposal") } })
      expect(viaPatch.body.stage_id).toBe(stage("Proposal"))

      const timeline = await host.call("GET", `/v1/deals/${deal.id}/timeline`)
      expect(timeline.status).toBe(200)
      expect(timeline.body.data.map((e: { to_stage_id: string }) => e.to_stage_id)).toEqual([stage("Qualified"), stage("Proposal")])
      expect(timeline.body.next_cursor).toBeNull()

      const stale = await host.call("PUT", `/v1/deals/${deal.id}/stage`, {
        body: { stage_id: stage("Won") },
        headers: { "if-match": '"1"' }
      })
      expect(stale.status).toBe(412)
      expect((await host.call("GET", `/v1/deals/${deal.id}`)).body.stage_id).toBe(stage("Proposal"))

      const foreign = await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: "stage_nope" } })
      expect(foreign.status).toBe(400)
      expect(errorOf(foreign).details[0]?.path).toBe("stage_id")
    })

    it("deletes, lists in the trash, restores", async () => {
      const { body: deal } = await createDeal({ name: "Doomed" })
      expect((await host.call("DELETE", `/v1/deals/${deal.id}`)).status).toBe(204)
      expect((await host.call("GET", `/v1/deals/${deal.id}`)).status).toBe(404)
      expect((await host.call("GET", `/v1/deals/${deal.id}/timeline`)).status).toBe(404)
      const trash = await host.call("GET", "/v1/trash?type=deal")
      expect(trash.body.data.map((i: { id: string }) => i.id)).toContain(deal.id)
      const restored = await host.call("POST", `/v1/deals/${deal.id}/restore`)
      expect(restored.status).toBe(200)
      expect(restored.body).toEqual(deal)
    })

    it("rejects a missing name, an unknown pipeline and an unknown id", async () => {
      const missing = await host.call("POST", "/v1/deals", { body: { pipeline_id: sales.id } })
      expect(missing.status).toBe(400)
      expect(errorOf(missing).details[0]?.path).toBe("name")
      const pipeline = await host.call("POST", "/v1/deals", { body: { name: "x", pipeline_id: "pipe_nope" } })
      expect(pipeline.status).toBe(400)
      expect(errorOf(pipeline).details[0]?.path).toBe("pipeline_id")
      const unknown = await host.call("PATCH", "/v1/deals/deal_nope", { body: { name: "x" } })
      expect(unknown.status).toBe(404)
    })

    it("trash needs a type", async () => {
      const answer = await host.call("GET", "/v1/trash")
      expect(answer.status).toBe(400)
      expect(errorOf(answer).details[0]?.path).toBe("type")
    })
  })

  describe("custom fields over HTTP", () => {
    it("defines a field, uses it on records, filters by it, lists and deletes the definition", async () => {
      const defined = await host.call("POST", "/v1/custom-fields", {
        body: { object: "contact", key: "industry", label: "Industry", type: "enum", options: ["saas", "fintech"] }
      })
      expect(defined.status, defined.text).toBe(201)
      expect(defined.headers.get("location")).toBe("/v1/custom-fields/contact/industry")

      const contact = await host.call("POST", "/v1/contacts", { body: { email: "cf@example.com", industry: "saas" } })
      expect(contact.status).toBe(201)
      expect(contact.body.industry).toBe("saas")
      const wrong = await host.call("POST", "/v1/contacts", { body: { email: "cf2@example.com", industry: "mining" } })
      expect(wrong.status).toBe(400)
      expect(errorOf(wrong).details[0]?.path).toBe("industry")

      const filter = encodeURIComponent(JSON.stringify({ industry: { $in: ["saas"] } }))
      const filtered = await host.call("GET", `/v1/contacts?filter=${filter}`)
      expect(filtered.body.data.map((c: { email: string }) => c.email)).toEqual(["cf@example.com"])

      const listed = await host.call("GET", "/v1/custom-fields?object=contact")
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((d: { key: string }) => d.key)).toEqual(["industry"])
      expect((await host.call("GET", "/v1/custom-fields?object=deal")).body.data).toEqual([])
      expect((await host.call("GET", "/v1/custom-fields?object=lead")).status).toBe(400)

      const conditional = await host.call("DELETE", "/v1/custom-fields/contact/industry", { headers: { "if-match": '"1"' } })
      expect(conditional.status).toBe(400)
      expect(errorOf(conditional).details[0]?.path).toBe("If-Match")
      const deleted = await host.call("DELETE", "/v1/custom-fields/contact/industry")
      expect(deleted.status).toBe(204)
      expect((await host.call("GET", "/v1/custom-fields")).body.data).toEqual([])
      expect((await host.call("DELETE", "/v1/custom-fields/contact/industry")).status).toBe(404)
    })

    it("rejects a key that shadows a standard field", async () => {
      const answer = await host.call("POST", "/v1/custom-fields", { body: { object: "deal", key: "name", label: "Name", type: "text" } })
      expect(answer.status).toBe(400)
      expect(errorOf(answer).details[0]?.path).toBe("key")
    })
  })
})
