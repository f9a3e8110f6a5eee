import { describe, expect, it } from "vitest"
import { BoundedCache } from "./boundedCache.js"

describe("BoundedCache", () => {
  it("never holds more than its capacity, and drops the least recently used first", () => {
    const cache = new BoundedCache<number, string>(10)
    for (let i = 0; i < 10; i++) cache.set(i, `v${i}`)
    // Reading 0 makes it the most recent: 1 is now the oldest.
    expect(cache.get(0)).toBe("v0")
    cache.set(10, "v10")
    expect(cache.size).toBe(9)
    expect(cache.get(1)).toBeUndefined()
    expect(cache.get(0)).toBe("v0")
    expect(cache.get(10)).toBe("v10")
    for (let i = 11; i < 1_000; i++) {
      cache.set(i, `v${i}`)
      expect(cache.size).toBeLessThanOrEqual(10)
    }
    expect(cache.get(999)).toBe("v999")
  })

  it("setting a held key again replaces its value without dropping anything", () => {
    const cache = new BoundedCache<string, number>(3)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.set("c", 3)
    cache.set("a", 4)
    expect(cache.size).toBe(3)
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([4, 2, 3])
  })
})
