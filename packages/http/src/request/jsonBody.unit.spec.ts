import { describe, expect, it } from "vitest"
import { MAX_BODY_DEPTH, nestsDeeperThan } from "./jsonBody.js"

const nested = (depth: number, open: string, close: string) => JSON.parse(open.repeat(depth) + "1" + close.repeat(depth)) as unknown

describe("nestsDeeperThan", () => {
  it("counts objects and arrays, not scalars", () => {
    expect(nestsDeeperThan(1, 0)).toBe(false)
    expect(nestsDeeperThan({ a: 1 }, 1)).toBe(false)
    expect(nestsDeeperThan({ a: [1] }, 1)).toBe(true)
    expect(nestsDeeperThan({ stages: [{ name: "One" }] }, 3)).toBe(false)
    expect(nestsDeeperThan({ stages: [{ name: "One" }] }, 2)).toBe(true)
  })

  it("accepts the limit and refuses one level more, in objects and arrays alike", () => {
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH, "[", "]"), MAX_BODY_DEPTH)).toBe(false)
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH, '{"a":', "}"), MAX_BODY_DEPTH)).toBe(false)
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH + 1, "[", "]"), MAX_BODY_DEPTH)).toBe(true)
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH + 1, '{"a":', "}"), MAX_BODY_DEPTH)).toBe(true)
  })

  // The request that found it: a 10 000-level body overflowed the stack of the recursive walks after
  // JSON.parse (500). The check itself must not recurse.
  it("walks half a million levels without running out of stack", () => {
    expect(nestsDeeperThan(nested(500_000, "[", "]"), MAX_BODY_DEPTH)).toBe(true)
  })
})
