import { apiKeyIdOf, StorageUnavailable, SYSTEM_WORKSPACE } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Clock, Effect, Option } from "effect"
import * as ApiKeys from "./ApiKeys.js"
import * as StoredKeyCache from "./storedKeyCache.js"

const hex = (key: string) => createHash("sha256").update(key, "utf8").digest("hex")

describe("ApiKeys", () => {
  it.effect("answers a configured key without asking storage, and a stored one by its digest only", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const keys = ApiKeys.make([{ workspaceId: "ws_env", key: "env-key" }], (digest) =>
        Effect.sync(() => {
          asked.push(digest)
          return digest === hex("stored-key") ? { workspaceId: "acme", keyId: apiKeyIdOf(digest), scopes: "*", expiresAt: null } : null
        })
      )
      expect(yield* keys.authenticate("env-key")).toEqual(
        Option.some({ workspaceId: "ws_env", keyId: apiKeyIdOf(hex("env-key")), scopes: "*", expiresAt: null, configured: true })
      )
      expect(asked).toEqual([])
      expect(yield* keys.authenticate("stored-key")).toEqual(
        Option.some({ workspaceId: "acme", keyId: apiKeyIdOf(hex("stored-key")), scopes: "*", expiresAt: null, configured: false })
      )
      expect(yield* keys.authenticate("nope")).toEqual(Option.none())
      expect(asked).toEqual([hex("stored-key"), hex("nope")])
    })
  )

  it.effect("fails with StorageUnavailable when stored keys cannot be read, but configured keys still work", () =>
    Effect.gen(function* () {
      const keys = ApiKeys.make([{ workspaceId: "ws_env", key: "env-key" }], () =>
        Effect.fail(new StorageUnavailable({ message: "connect ECONNREFUSED" }))
      )
      expect(Option.isSome(yield* keys.authenticate("env-key"))).toBe(true)
      expect((yield* Effect.flip(keys.authenticate("other"))).message).toBe("connect ECONNREFUSED")
    })
  )

  it.effect("knows a connection's last key without hashing it again, and nothing else by it", () =>
    Effect.gen(function* () {
      const cache = StoredKeyCache.make<ApiKeys.KeyOwner>(StoredKeyCache.defaults)
      const keys = ApiKeys.make(
        [{ workspaceId: "ws_env", key: "env-key" }],
        (digest) =>
          Effect.succeed(digest === hex("stored-key") ? { workspaceId: "acme", keyId: "k1", scopes: "*", expiresAt: null } : null),
        cache
      )
      // The cache stamps what it learns with the fiber's (test) clock.
      const now = yield* Clock.currentTimeMillis
      const connection = {}
      expect(keys.knownAt("env-key", now, connection)?.workspaceId).toBe("ws_env")
      expect(keys.knownAt("env-key", now, connection)?.workspaceId).toBe("ws_env")
      // Another key on the same connection (a proxy's) is its own, known or not: never the last one's.
      for (const other of ["env-ke", "env-key ", "env-kez", "", "stored-key"]) expect(keys.knownAt(other, now, connection)).toBeUndefined()
      yield* keys.authenticate("stored-key")
      expect(keys.knownAt("stored-key", now, connection)?.workspaceId).toBe("acme")
      expect(keys.knownAt("stored-key", now, connection)?.workspaceId).toBe("acme")
      // A stored key is asked of the cache each time: forgotten (revoked through this host), it is not known.
      cache.forget((owner) => owner.keyId === "k1")
      expect(keys.knownAt("stored-key", now, connection)).toBeUndefined()
      expect(keys.knownAt("env-key", now, connection)?.workspaceId).toBe("ws_env")
    })
  )

  it("refuses a configured key for a workspace outside the API's syntax, such as the reserved one", () => {
    expect(() => ApiKeys.make([{ workspaceId: SYSTEM_WORKSPACE, key: "k" }], () => Effect.succeed(null))).toThrow(
      /invalid workspace id "\$system"/
    )
  })
})
