import { StorageUnavailable } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as StoredKeyCache from "./storedKeyCache.js"

/** A lookup that counts how often the database would have been asked. */
const counting = () => {
  let calls = 0
  return {
    calls: () => calls,
    answer: <A>(value: A | null) => Effect.sync(() => (calls++, value))
  }
}

describe("StoredKeyCache", () => {
  it.effect("keeps a found key for less than the ttl, then asks again", () =>
    Effect.gen(function* () {
      const cache = StoredKeyCache.make<string>({ ttlMillis: 5_000, capacity: 10 })
      const db = counting()
      expect(yield* cache.lookup("a", db.answer("acme"))).toBe("acme")
      yield* TestClock.adjust("4999 millis")
      expect(yield* cache.lookup("a", db.answer("changed"))).toBe("acme")
      expect(db.calls()).toBe(1)
      yield* TestClock.adjust("1 millis")
      // Revoked in the meantime: the database's answer wins once the ttl has passed.
      expect(yield* cache.lookup("a", db.answer(null))).toBeNull()
      expect(db.calls()).toBe(2)
      expect(cache.size()).toBe(0)
    })
  )

  it.effect("counts an answer's age from before the lookup, so a slow database does not stretch the window", () =>
    Effect.gen(function* () {
      const cache = StoredKeyCache.make<string>({ ttlMillis: 5_000, capacity: 10 })
      // The database takes 2 s to answer; the key may have been revoked just after it read the row.
      yield* cache.lookup("a", Effect.andThen(TestClock.adjust("2 seconds"), Effect.succeed("acme")))
      yield* TestClock.adjust("3 seconds")
      const db = counting()
      expect(yield* cache.lookup("a", db.answer(null))).toBeNull()
      expect(db.calls()).toBe(1)
    })
  )

  it.effect("never keeps an unknown key or a failed lookup", () =>
    Effect.gen(function* () {
      const cache = StoredKeyCache.make<string>({ ttlMillis: 5_000, capacity: 10 })
      const db = counting()
      for (let i = 0; i < 3; i++) expect(yield* cache.lookup("garbage", db.answer(null))).toBeNull()
      expect(db.calls()).toBe(3)
      const down = yield* Effect.flip(cache.lookup("a", Effect.fail(new StorageUnavailable({ message: "down" }))))
      expect(down._tag).toBe("StorageUnavailable")
      expect(cache.size()).toBe(0)
      expect(yield* cache.lookup("a", db.answer("acme"))).toBe("acme")
      expect(db.calls()).toBe(4)
    })
  )

  it.effect("holds at most `capacity` answers, pushing out the oldest first", () =>
    Effect.gen(function* () {
      const cache = StoredKeyCache.make<string>({ ttlMillis: 5_000, capacity: 3 })
      const db = counting()
      for (const key of ["a", "b", "c", "d"]) {
        yield* cache.lookup(key, db.answer(key))
        yield* TestClock.adjust("10 millis")
      }
      expect(cache.size()).toBe(3)
      expect(db.calls()).toBe(4)
      // b, c and d are still cached; a was pushed out and is looked up again (pushing out b).
      for (const key of ["b", "c", "d"]) yield* cache.lookup(key, db.answer("stale"))
      expect(db.calls()).toBe(4)
      expect(yield* cache.lookup("a", db.answer("a again"))).toBe("a again")
      expect(db.calls()).toBe(5)
      expect(yield* cache.lookup("b", db.answer("b again"))).toBe("b again")
      expect(cache.size()).toBe(3)
    })
  )

  it.effect("forgets the answers it is told to, so the next lookup asks the database at once", () =>
    Effect.gen(function* () {
      const cache = StoredKeyCache.make<{ readonly keyId: string }>({ ttlMillis: 5_000, capacity: 10 })
      const db = counting()
      yield* cache.lookup("a", db.answer({ keyId: "key_a" }))
      yield* cache.lookup("b", db.answer({ keyId: "key_b" }))
      cache.forget((owner) => owner.keyId === "key_a")
      expect(yield* cache.lookup("a", db.answer(null))).toBeNull()
      expect(yield* cache.lookup("b", db.answer(null))).toEqual({ keyId: "key_b" })
      expect(db.calls()).toBe(3)
    })
  )

  it.effect("stays bounded under many distinct valid keys", () =>
    Effect.gen(function* () {
      const cache = StoredKeyCache.make<number>({ ttlMillis: 5_000, capacity: 100 })
      for (let i = 0; i < 1_000; i++) yield* cache.lookup(`k${i}`, Effect.succeed(i))
      expect(cache.size()).toBe(100)
    })
  )
})
