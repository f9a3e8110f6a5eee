import { describe, expect, it } from "vitest"
import { parseRetryAfter } from "./retryAfter.js"

const NOW = Date.parse("2026-11-21T22:00:00.000Z")

describe("parseRetryAfter", () => {
  it("reads delta-seconds", () => {
    expect(parseRetryAfter("120", NOW)).toBe(120)
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0)
  })

  it("reads an HTTP date as seconds from now, a past one as 0", () => {
    expect(parseRetryAfter("Sat, 21 Nov 2026 22:01:30 GMT", NOW)).toBe(90)
    expect(parseRetryAfter("Sat, 21 Nov 2026 21:00:00 GMT", NOW)).toBe(0)
  })

  it("is null when absent or malformed, never a guess", () => {
    expect(parseRetryAfter(undefined, NOW)).toBeNull()
    expect(parseRetryAfter("", NOW)).toBeNull()
    expect(parseRetryAfter("-5", NOW)).toBeNull()
    expect(parseRetryAfter("1.5", NOW)).toBeNull()
    expect(parseRetryAfter("2026-11-21T22:01:30Z", NOW)).toBeNull()
    expect(parseRetryAfter("soon", NOW)).toBeNull()
  })
})
