import { describe, expect, it } from "vitest"
import { errorOf, hostFor, KEY_B, STORAGES } from "./client.js"

describe.each(STORAGES)("%s storage", (storage) => {
  const host = hostFor(storage)

  const asB = { key: KEY_B }

  describe("workspace isolation", () => {
    it("a second key never sees, changes, deletes or restores the first workspace's records", async () => {
      const contact = (await host.call("POST", "/v1/contacts", { body: { email: "secret@example.com", source: "a-only" } })).body
      const pipelineA = (await host.call("POST", "/v1/pipelines", { body: { name: "A pipeline", stages: [{ name: "One" }] } })).body
      const deal = (
        await host.call("POST", "/v1/deals", { body: { name: "A deal", pipeline_id: pipelineA.id, contact_ids: [contact.id] } })
      ).body
      const trashed = (await host.call("POST", "/v1/contacts", { body: { email: "trashed@example.com" } })).body
      expect((await host.call("DELETE", `/v1/contacts/${trashed.id}`)).status).toBe(204)
      expect(
        (await host.call("POST", "/v1/custom-fields", { body: { object: "contact", key: "tier", label: "Tier", type: "text" } })).status
      ).toBe(201)

      // Lists and searches of B are empty of A's records.
      expect((await host.call("GET", "/v1/contacts", asB)).body.data).toEqual([])
      expect((await host.call("GET", "/v1/contacts?search=secret", asB)).body.data).toEqual([])
      expect((await host.call("GET", "/v1/deals", asB)).body.data).toEqual([])
      expect((await host.call("GET", "/v1/trash?type=contact", asB)).body.data).toEqual([])
      expect((await host.call("GET", "/v1/custom-fields", asB)).body.data).toEqual([])
      const pipelinesB = (await host.call("GET", "/v1/pipelines", asB)).body.data
      expect(pipelinesB.map((p: { id: string }) => p.id)).not.toContain(pipelineA.id)

      // Every single-record operation on A's records is 404 for B, exactly as for a missing id.
      const attempts = [
        ["GET", `/v1/contacts/${contact.id}`, undefined],
        ["PATCH", `/v1/contacts/${contact.id}`, { first_name: "Mallory" }],
        ["DELETE", `/v1/contacts/${contact.id}`, undefined],
        ["POST", `/v1/contacts/${trashed.id}/restore`, undefined],
        ["GET", `/v1/deals/${deal.id}`, undefined],
        ["PATCH", `/v1/deals/${deal.id}`, { name: "Stolen" }],
        ["PUT", `/v1/deals/${deal.id}/stage`, { stage_id: pipelineA.stages[0].id }],
        ["GET", `/v1/deals/${deal.id}/timeline`, undefined],
        ["DELETE", `/v1/deals/${deal.id}`, undefined],
        ["GET", `/v1/pipelines/${pipelineA.id}`, undefined],
        ["PATCH", `/v1/pipelines/${pipelineA.id}`, { name: "Stolen" }],
        ["DELETE", "/v1/custom-fields/contact/tier", undefined]
      ] as const
      for (const [method, path, body] of attempts) {
        const answer = await host.call(method, path, body === undefined ? asB : { ...asB, body })
        expect(answer.status, `${method} ${path}`).toBe(404)
        expect(errorOf(answer).code).toBe("not_found")
      }

      // B cannot reference A's records either.
      const foreignPipeline = await host.call("POST", "/v1/deals", { ...asB, body: { name: "B deal", pipeline_id: pipelineA.id } })
      expect(foreignPipeline.status).toBe(400)
      const pipelineB = pipelinesB[0]
      const foreignContact = await host.call("POST", "/v1/deals", {
        ...asB,
        body: { name: "B deal", pipeline_id: pipelineB.id, contact_ids: [contact.id] }
      })
      expect(foreignContact.status).toBe(400)

      // The same email is free in B (uniqueness is per workspace).
      expect((await host.call("POST", "/v1/contacts", { ...asB, body: { email: "secret@example.com" } })).status).toBe(201)

      // A's records are untouched.
      const after = await host.call("GET", `/v1/contacts/${contact.id}?expand=deals`)
      expect(after.status).toBe(200)
      expect(after.body).toMatchObject({ email: "secret@example.com", first_name: null })
      expect(after.body.deals.map((d: { id: string }) => d.id)).toEqual([deal.id])
      expect((await host.call("GET", `/v1/deals/${deal.id}`)).body.name).toBe("A deal")
      expect((await host.call("GET", `/v1/pipelines/${pipelineA.id}`)).body.name).toBe("A pipeline")
      expect((await host.call("GET", "/v1/trash?type=contact")).body.data.map((i: { id: string }) => i.id)).toEqual([trashed.id])
      expect((await host.call("GET", "/v1/custom-fields")).body.data.map((d: { key: string }) => d.key)).toEqual(["tier"])
    })
  })
})
