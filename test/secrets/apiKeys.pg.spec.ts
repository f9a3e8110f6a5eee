import { apiKeyIdOf, Engine, EngineLive, IdsLive, type ReadError, Storage, SYSTEM_WORKSPACE } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Effect, Layer } from "effect"
import { noWebhookSending } from "../support/engine.js"
import { testDatabase } from "../support/pg.js"

const sha256 = (key: string) => createHash("sha256").update(key, "utf8").digest("hex")

const storages = {
  memory: MemoryStorage.layer,
  postgres: Layer.unwrap(Effect.map(testDatabase, (url) => PgStorage.layer(url)))
}

describe.each(Object.keys(storages) as Array<keyof typeof storages>)("API keys in the engine on %s", (kind) => {
  const layer = EngineLive.pipe(Layer.provideMerge(storages[kind]), Layer.provide(IdsLive), Layer.provide(noWebhookSending))

  it.effect("are stored under the reserved workspace by digest, authenticate until revoked, and list without digests", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const storage = yield* Storage
      const key = "dsk_engine_test_key_0123456789"
      const digest = sha256(key)
      const id = apiKeyIdOf(digest)

      const created = yield* engine.apiKeys.create({ workspaceId: "acme", keySha256: digest, actor: "cli" })
      expect(created.data).toMatchObject({ id, workspace_id: "acme", revoked_at: null })
      expect(yield* engine.apiKeys.authenticate(digest)).toEqual({ workspaceId: "acme", keyId: id, scopes: "*" })
      expect(yield* engine.apiKeys.authenticate(sha256("another key"))).toBeNull()
      expect(yield* engine.apiKeys.authenticate("not a digest")).toBeNull()

      // The stream and the document belong to the reserved workspace; the log holds the digest only.
      const stream = yield* storage.readStream(id)
      expect(stream.map((e) => [e.type, e.metadata.workspaceId, e.metadata.actor])).toEqual([["api_key.created", SYSTEM_WORKSPACE, "cli"]])
      expect(JSON.stringify(stream)).not.toContain(key)
      expect((yield* storage.getDocument("api_key", SYSTEM_WORKSPACE, digest))?.data["id"]).toBe(id)

      const second = sha256("dsk_second")
      yield* engine.apiKeys.create({ workspaceId: "globex", keySha256: second, actor: "cli" })
      const all = yield* engine.apiKeys.list(null)
      expect(all.data.map((k) => k["id"])).toEqual([id, apiKeyIdOf(second)].sort())
      expect(JSON.stringify(all)).not.toMatch(new RegExp(`${digest}|${second}`))
      expect((yield* engine.apiKeys.list("globex")).data.map((k) => k["workspace_id"])).toEqual(["globex"])

      const revoked = yield* engine.apiKeys.revoke({ keyId: id, actor: "cli" })
      expect(typeof revoked.data["revoked_at"]).toBe("string")
      expect(yield* engine.apiKeys.authenticate(digest)).toBeNull()
      const again = yield* engine.apiKeys.revoke({ keyId: id, actor: "cli" })
      expect(again).toEqual(revoked)
      expect((yield* storage.readStream(id)).length).toBe(2)
      expect((yield* engine.apiKeys.list("acme")).data).toEqual([revoked.data])
    }).pipe(Effect.provide(layer))
  )

  it.effect("refuses the same key twice, an unknown key id, and workspaces outside the API's syntax", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const digest = sha256("dsk_twice")
      yield* engine.apiKeys.create({ workspaceId: "acme", keySha256: digest, actor: null })
      const twice = yield* Effect.flip(engine.apiKeys.create({ workspaceId: "other", keySha256: digest, actor: null }))
      expect(twice._tag).toBe("Conflict")
      const unknown = yield* Effect.flip(engine.apiKeys.revoke({ keyId: "key_000000000000", actor: null }))
      expect(unknown._tag).toBe("NotFound")
      const reserved = yield* Effect.flip(engine.apiKeys.create({ workspaceId: SYSTEM_WORKSPACE, keySha256: sha256("x"), actor: null }))
      expect(reserved._tag).toBe("ValidationError")
      // A record stream of a workspace is not a key, whatever its id says.
      const contact = yield* engine.contacts.create({ workspaceId: "acme", requestId: null, actor: null }, { email: "a@example.com" })
      const notAKey = yield* Effect.flip(engine.apiKeys.revoke({ keyId: String(contact.data["id"]), actor: null }))
      expect((notAKey as ReadError)._tag).toBe("NotFound")
      for (const keyId of ["key_\u0000", "ws_acme", "", `key_${digest.slice(0, 12).toUpperCase()}`]) {
        expect((yield* Effect.flip(engine.apiKeys.revoke({ keyId, actor: null })))._tag).toBe("NotFound")
      }
    }).pipe(Effect.provide(layer))
  )
})
