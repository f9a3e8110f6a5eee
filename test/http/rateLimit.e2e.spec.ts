import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, type Host, KEY_B, startHost } from "./client.js"

// The limiter is in-process and answers before the engine runs: memory storage is enough.
let host: Host
beforeAll(async () => {
  host = await startHost({ rateLimit: 0.5, rateBurst: 3 })
})
afterAll(() => host.close())

describe("rate limit", () => {
  it("counts down RateLimit-Remaining, then answers 429 with Retry-After; other keys are unaffected", async () => {
    const remaining: Array<string | null> = []
    for (let i = 0; i < 3; i++) {
      const answer = await host.call("GET", "/v1/contacts")
      expect(answer.status).toBe(200)
      expect(answer.headers.get("ratelimit-limit")).toBe("3")
      expect(Number(answer.headers.get("ratelimit-reset"))).toBeGreaterThan(0)
      remaining.push(answer.headers.get("ratelimit-remaining"))
    }
    expect(remaining).toEqual(["2", "1", "0"])

    const limited = await host.call("GET", "/v1/contacts")
    expect(limited.status).toBe(429)
    expect(errorOf(limited).code).toBe("rate_limited")
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(2)
    expect(limited.headers.get("ratelimit-remaining")).toBe("0")

    // Writes count against the same bucket; another key has its own.
    const write = await host.call("POST", "/v1/contacts", { body: { email: "limited@example.com" } })
    expect(write.status).toBe(429)
    expect((await host.call("GET", "/v1/contacts", { key: KEY_B })).status).toBe(200)

    // Unauthenticated probes are not limited.
    expect((await host.call("GET", "/healthz", { key: null })).status).toBe(200)
  })
})
