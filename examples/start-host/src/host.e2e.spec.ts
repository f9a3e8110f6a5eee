import { describe, expect, it } from "vitest"
import { startCrm } from "./host.js"

describe("the host, started from code", () => {
  it("serves the API on a real socket and stops cleanly", async () => {
    const crm = await startCrm()
    try {
      const created = await crm.call("POST", "/v1/contacts", { email: "ada@example.com" })
      expect(created.status).toBe(201)
      const listed = await crm.call("GET", "/v1/contacts")
      expect(listed.body["data"].map((c: { email: string }) => c.email)).toEqual(["ada@example.com"])
      const unauthorised = await fetch(`${crm.url}/v1/contacts`)
      expect(unauthorised.status).toBe(401)
    } finally {
      await crm.close()
    }
    await expect(fetch(`${crm.url}/healthz`)).rejects.toThrow()
  })
})
