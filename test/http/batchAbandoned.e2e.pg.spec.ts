import { request } from "node:http"
import { describe, expect, it } from "vitest"
import { hostFor, KEY_A, STORAGES } from "./client.js"

/**
 * A keyed batch whose client goes away part-way (a killed `dealstream import` did): the server
 * interrupts a request whose socket closed, and a batch interrupted after its first commit stayed
 * half applied, its key claimed, so its retry was refused as applied and a resumed import lost the
 * rest of the batch (CI, importCli: 901 of 1,000 rows). The host now finishes the batch and keeps
 * its answer, which the retry gets.
 */
describe.each(STORAGES)("a batch abandoned by its client on %s storage", { timeout: 120_000 }, (storage) => {
  const host = hostFor(storage)

  it("is finished by the host, and its retry gets the whole answer, replayed", async () => {
    const token = `abandoned${storage}${Date.now().toString(36)}`
    const email = `${token}@example.com`
    // One create, then 99 upserts of that contact: they run one after another, so the batch is
    // still under way when its first commit shows.
    const operations = [
      { op: "create", data: { email, first_name: "N0" } },
      ...Array.from({ length: 99 }, (_, i) => ({ op: "upsert", match: { email }, data: { first_name: `N${i + 1}` } }))
    ]
    const body = JSON.stringify({ operations })
    const headers = { "idempotency-key": `abandoned-${token}` }

    const abandoned = request(`${host.url}/v1/contacts/batch`, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${KEY_A}`, "content-type": "application/json" }
    })
    const gone = new Promise<void>((resolve) => abandoned.on("close", resolve))
    abandoned.on("error", () => {})
    abandoned.end(body)
    for (;;) {
      const found = await host.call("GET", `/v1/contacts?search=${token}`)
      expect(found.status, found.text).toBe(200)
      if (found.body.data.length > 0) break
    }
    abandoned.destroy()
    await gone

    const retry = await host.call("POST", "/v1/contacts/batch", { raw: body, headers: { ...headers, "content-type": "application/json" } })
    expect(retry.status, retry.text).toBe(200)
    expect(retry.headers.get("idempotent-replayed")).toBe("true")
    expect(retry.body.results.map((r: { status: number }) => r.status)).toEqual([201, ...Array.from({ length: 99 }, () => 200)])
    const contacts = (await host.call("GET", `/v1/contacts?search=${token}`)).body.data
    expect(contacts).toHaveLength(1)
    expect(contacts[0].first_name).toBe("N99")
  })
})
