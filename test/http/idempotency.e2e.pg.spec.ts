import { describe, expect, it } from "vitest"
import { errorOf, hostFor, KEY_B, STORAGES } from "./client.js"

describe.each(STORAGES)("%s storage", (storage) => {
  const host = hostFor(storage)

  const contactCount = async (search: string) =>
    (await host.call("GET", `/v1/contacts?search=${encodeURIComponent(search)}`)).body.data.length

  describe("Idempotency-Key", () => {
    it("replays the stored status, body and Location for the same key and body, and creates nothing", async () => {
      const headers = { "idempotency-key": "create-ada-1" }
      const first = await host.call("POST", "/v1/contacts", { body: { email: "idem@example.com", first_name: "Ada" }, headers })
      expect(first.status).toBe(201)
      expect(first.headers.get("idempotent-replayed")).toBeNull()

      // Same body with keys in another order: the same request.
      const again = await host.call("POST", "/v1/contacts", { body: { first_name: "Ada", email: "idem@example.com" }, headers })
      expect(again.status).toBe(201)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.headers.get("location")).toBe(first.headers.get("location"))
      expect(again.body).toEqual(first.body)
      expect(await contactCount("idem")).toBe(1)
    })

    it("the same key with another body or path is 409 idempotency_conflict", async () => {
      const headers = { "idempotency-key": "create-ada-2" }
      expect((await host.call("POST", "/v1/contacts", { body: { email: "idem2@example.com" }, headers })).status).toBe(201)
      const other = await host.call("POST", "/v1/contacts", { body: { email: "someone-else@example.com" }, headers })
      expect(other.status).toBe(409)
      expect(errorOf(other).code).toBe("idempotency_conflict")
      expect(await contactCount("someone-else")).toBe(0)

      const sales = (await host.call("GET", "/v1/pipelines")).body.data[0]
      const otherPath = await host.call("POST", "/v1/deals", { body: { name: "x", pipeline_id: sales.id }, headers })
      expect(otherPath.status).toBe(409)
    })

    it("only a 2xx is stored: a failed attempt can be retried with the same key", async () => {
      const headers = { "idempotency-key": "retry-after-fix" }
      const taken = await host.call("POST", "/v1/contacts", { body: { email: "dup@example.com" } })
      expect(taken.status).toBe(201)
      const failed = await host.call("POST", "/v1/contacts", { body: { email: "dup@example.com" }, headers })
      expect(failed.status).toBe(409)
      expect(errorOf(failed).code).toBe("conflict")
      expect((await host.call("DELETE", `/v1/contacts/${taken.body.id}`)).status).toBe(204)
      const retried = await host.call("POST", "/v1/contacts", { body: { email: "dup@example.com" }, headers })
      expect(retried.status).toBe(201)
      expect(retried.headers.get("idempotent-replayed")).toBeNull()
    })

    it("keys belong to a workspace", async () => {
      const headers = { "idempotency-key": "shared-key" }
      const a = await host.call("POST", "/v1/contacts", { body: { email: "ws-a@example.com" }, headers })
      const b = await host.call("POST", "/v1/contacts", { key: KEY_B, body: { email: "ws-b@example.com" }, headers })
      expect(a.status).toBe(201)
      expect(b.status).toBe(201)
      expect(b.headers.get("idempotent-replayed")).toBeNull()
      expect(b.body.email).toBe("ws-b@example.com")
    })

    it("replays restore, and concurrent requests with one key run once", async () => {
      const { body: contact } = await host.call("POST", "/v1/contacts", { body: { email: "race@example.com" } })
      const headers = { "idempotency-key": "race" }
      const answers = await Promise.all(
        [1, 2, 3, 4].map(() => host.call("POST", "/v1/contacts", { body: { email: "race2@example.com" }, headers }))
      )
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201])
      expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(3)
      expect(await contactCount("race2")).toBe(1)

      expect((await host.call("DELETE", `/v1/contacts/${contact.id}`)).status).toBe(204)
      const restoreHeaders = { "idempotency-key": "restore-race" }
      const restored = await host.call("POST", `/v1/contacts/${contact.id}/restore`, { headers: restoreHeaders })
      const replayed = await host.call("POST", `/v1/contacts/${contact.id}/restore`, { headers: restoreHeaders })
      expect(restored.status).toBe(200)
      expect(replayed.status).toBe(200)
      expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    })

    it("a key over 255 characters is 400", async () => {
      const answer = await host.call("POST", "/v1/contacts", {
        body: { email: "long@example.com" },
        headers: { "idempotency-key": "k".repeat(256) }
      })
      expect(answer.status).toBe(400)
      expect(errorOf(answer).details[0]?.path).toBe("Idempotency-Key")
      expect(await contactCount("long")).toBe(0)
      const max = await host.call("POST", "/v1/contacts", {
        body: { email: "long@example.com" },
        headers: { "idempotency-key": "k".repeat(255) }
      })
      expect(max.status).toBe(201)
    })
  })
})
