import { apiKeyIdOf, type KeyUse, StorageUnavailable } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Clock, Deferred, Effect, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import * as ApiKeys from "./ApiKeys.js"
import * as KeyUses from "./keyUses.js"

const options = { everyMillis: 60_000, flushMillis: 1_000, capacity: 100 }
const t0 = Date.parse("1970-01-01T00:00:00.000Z")
const iso = (millis: number) => new Date(t0 + millis).toISOString()

/** A use noted at the engine's time, as Authentication notes one. */
const note = (uses: KeyUses.KeyUses, keyId: string) => Effect.map(Clock.currentTimeMillis, (now) => uses.noteAt(keyId, now))

/** A writer that keeps what it was given, one array per write. */
const recording = () => {
  const writes: Array<ReadonlyArray<KeyUse>> = []
  return { writes, write: (uses: ReadonlyArray<KeyUse>) => Effect.sync(() => void writes.push(uses)) }
}

describe("API key uses (last_used_at)", () => {
  it.effect("are written by the background fiber, at most once a minute per key, all keys of a flush in one write", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const db = recording()
        const uses = yield* KeyUses.make(db.write, options)
        yield* note(uses, "key_aaaaaaaaaaaa")
        yield* note(uses, "key_bbbbbbbbbbbb")
        // Noted, not written: the request that noted it did not wait for anything.
        expect(db.writes).toEqual([])
        yield* TestClock.adjust("1 second")
        expect(db.writes).toEqual([
          [
            { keyId: "key_aaaaaaaaaaaa", at: iso(0) },
            { keyId: "key_bbbbbbbbbbbb", at: iso(0) }
          ]
        ])
        // Within the minute: nothing more, however often the key is used.
        for (let second = 1; second < 60; second++) {
          yield* note(uses, "key_aaaaaaaaaaaa")
          yield* TestClock.adjust("1 second")
        }
        expect(db.writes).toHaveLength(1)
        // A minute after the note: noted again.
        yield* note(uses, "key_aaaaaaaaaaaa")
        yield* TestClock.adjust("1 second")
        expect(db.writes.slice(1)).toEqual([[{ keyId: "key_aaaaaaaaaaaa", at: iso(60_000) }]])
        expect(uses.pending()).toBe(0)
      })
    )
  )

  it.effect("a write that hangs holds back no note; a failed one is noted again at the key's next use", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const stuck = yield* Deferred.make<void>()
        const written: Array<ReadonlyArray<KeyUse>> = []
        let fail = true
        const write = (batch: ReadonlyArray<KeyUse>) =>
          fail
            ? Effect.fail(new StorageUnavailable({ message: "down" }))
            : Effect.andThen(
                Deferred.await(stuck),
                Effect.sync(() => void written.push(batch))
              )
        const uses = yield* KeyUses.make(write, options)
        yield* note(uses, "key_aaaaaaaaaaaa")
        yield* TestClock.adjust("1 second")
        // The write failed: the use is forgotten as written, and a use within the minute notes it again.
        yield* TestClock.adjust("10 seconds")
        fail = false
        yield* note(uses, "key_aaaaaaaaaaaa")
        expect(uses.pending()).toBe(1)
        yield* TestClock.adjust("1 second")
        // Now the write hangs; notes of other keys go on at once, in memory.
        expect(uses.pending()).toBe(0)
        yield* note(uses, "key_bbbbbbbbbbbb")
        expect(uses.pending()).toBe(1)
        yield* Deferred.succeed(stuck, undefined)
        yield* TestClock.adjust("1 second")
        expect(written).toEqual([[{ keyId: "key_aaaaaaaaaaaa", at: iso(11_000) }], [{ keyId: "key_bbbbbbbbbbbb", at: iso(12_000) }]])
      })
    )
  )

  it.effect("authentication answers while the writer is stuck, and notes stored keys only", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const never = yield* Deferred.make<void>()
        const asked: Array<ReadonlyArray<KeyUse>> = []
        const uses = yield* KeyUses.make(
          (batch) =>
            Effect.andThen(
              Effect.sync(() => void asked.push(batch)),
              Deferred.await(never)
            ),
          options
        )
        const hex = (key: string) => createHash("sha256").update(key).digest("hex")
        const keys = ApiKeys.make(
          [{ workspaceId: "ws_env", key: "env-key" }],
          (digest) => Effect.succeed({ workspaceId: "acme", keyId: apiKeyIdOf(digest), scopes: "*", expiresAt: null }),
          undefined,
          uses
        )
        for (let i = 0; i < 3; i++) {
          const fiber = yield* Effect.forkChild(
            Effect.gen(function* () {
              const owner = Option.getOrThrow(yield* keys.authenticate("stored-key"))
              keys.usedAt(owner, yield* Clock.currentTimeMillis)
              const configured = Option.getOrThrow(yield* keys.authenticate("env-key"))
              keys.usedAt(configured, yield* Clock.currentTimeMillis)
              return owner.keyId
            })
          )
          expect(yield* Fiber.join(fiber)).toBe(apiKeyIdOf(hex("stored-key")))
          yield* TestClock.adjust("1 second")
        }
        // The first flush is stuck on its write; the requests never were.
        expect(asked).toEqual([[{ keyId: apiKeyIdOf(hex("stored-key")), at: iso(0) }]])
      })
    )
  )
})
