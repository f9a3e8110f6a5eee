import { apiKeyIdOf, Engine, EngineLive, IdsLive, type ReadError, Storage, SYSTEM_WORKSPACE } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { streamRowsInTheirLog } from "../../packages/storage-pg/src/migrations/0027_stream_rows_in_their_log.js"
import { noWebhookSending } from "../support/engine.js"
import { testDatabase } from "../support/pg.js"

const sha256 = (key: string) => createHash("sha256").update(key, "utf8").digest("hex")

/** What upgrading the storage to this version does to data an earlier version wrote (PostgreSQL: migrations 0027 on). */
class Upgrade extends Context.Service<Upgrade, Effect.Effect<void>>()("test/secrets/Upgrade") {}

const onDatabase = (url: string, statement: string) =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }), (sql) => sql.unsafe(statement))
  ).pipe(Effect.provide(Reactivity.layer), Effect.asVoid, Effect.orDie)

const storages = {
  memory: Layer.merge(MemoryStorage.layer, Layer.succeed(Upgrade, Effect.void)),
  postgres: Layer.unwrap(
    Effect.map(testDatabase, (url) => Layer.merge(PgStorage.layer(url), Layer.succeed(Upgrade, onDatabase(url, streamRowsInTheirLog))))
  )
}

describe.each(Object.keys(storages) as Array<keyof typeof storages>)("API keys in the engine on %s", (kind) => {
  const layer = EngineLive.pipe(Layer.provideMerge(storages[kind]), Layer.provide(IdsLive), Layer.provide(noWebhookSending))

  it.effect(
    "are stored under the reserved workspace by digest, recorded in their own, authenticate until revoked, and list without digests",
    () =>
      Effect.gen(function* () {
        const engine = yield* Engine
        const storage = yield* Storage
        const key = "dsk_engine_test_key_0123456789"
        const digest = sha256(key)
        const id = apiKeyIdOf(digest)

        const created = yield* engine.apiKeys.create({ workspaceId: "acme", keySha256: digest, actor: "cli" })
        expect(created.data).toMatchObject({ id, workspace_id: "acme", name: null, scopes: "*", expires_at: null, revoked_at: null })
        expect(yield* engine.apiKeys.authenticate(digest)).toEqual({ workspaceId: "acme", keyId: id, scopes: "*", expiresAt: null })
        expect(yield* engine.apiKeys.authenticate(sha256("another key"))).toBeNull()
        expect(yield* engine.apiKeys.authenticate("not a digest")).toBeNull()

        // The document belongs to the reserved workspace, the stream to the key's (its feed shows it,
        // announced without the digest); the log holds the digest only, in the event's data.
        const stream = yield* storage.readStream(id)
        expect(stream.map((e) => [e.type, e.metadata.workspaceId, e.metadata.actor])).toEqual([["api_key.created", "acme", "cli"]])
        expect(JSON.stringify(stream)).not.toContain(key)
        expect(JSON.stringify(stream[0]!.metadata)).not.toContain(digest)
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

  it.effect("a key stored before names, scopes and expiries may do everything, never expires, and changes in its own workspace", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const storage = yield* Storage
      const digest = sha256(`dsk_legacy_${kind}`)
      const id = apiKeyIdOf(digest)
      const at = "2026-01-01T00:00:00.000Z"
      // As the version before wrote it: its event and its document in the reserved workspace, no scopes.
      yield* storage.commit({
        streams: [
          {
            streamId: id,
            expectedVersion: 0,
            events: [
              {
                type: "api_key.created",
                data: { id, workspace_id: "legacy", key_sha256: digest, at },
                metadata: { workspaceId: SYSTEM_WORKSPACE, eventId: `evt_legacy_${kind}`, requestId: null, actor: "cli" }
              }
            ]
          }
        ],
        documents: [
          {
            _tag: "Upsert",
            collection: "api_key",
            workspaceId: SYSTEM_WORKSPACE,
            id: digest,
            version: 1,
            deletedAt: null,
            uniqueKey: null,
            searchWords: [],
            data: { id, workspace_id: "legacy", created_at: at, revoked_at: null }
          }
        ]
      })
      // What the upgrade does to it (the version row moves to the key's workspace), as on a real upgrade.
      yield* yield* Upgrade
      expect(yield* engine.apiKeys.authenticate(digest)).toEqual({ workspaceId: "legacy", keyId: id, scopes: "*", expiresAt: null })
      const ctx = { workspaceId: "legacy", requestId: null, actor: "key_000000000000" }
      const manager = { scopes: "*" as const, configured: true }
      expect((yield* engine.apiKeys.get(ctx, id)).data).toEqual({
        id,
        name: null,
        scopes: "*",
        expires_at: null,
        last_used_at: null,
        created_at: at,
        revoked_at: null
      })
      expect((yield* engine.apiKeys.listFor(ctx)).data.map((k) => k["id"])).toEqual([id])
      // Another workspace does not find it.
      expect((yield* Effect.flip(engine.apiKeys.get({ ...ctx, workspaceId: "acme" }, id)))._tag).toBe("NotFound")
      const renamed = yield* engine.apiKeys.update(ctx, id, { name: "old one", scopes: ["contacts:read"] }, null, manager)
      expect(renamed.data).toMatchObject({ name: "old one", scopes: ["contacts:read"] })
      expect(yield* engine.apiKeys.authenticate(digest)).toEqual({
        workspaceId: "legacy",
        keyId: id,
        scopes: ["contacts:read"],
        expiresAt: null
      })
      yield* engine.apiKeys.delete(ctx, id, null, manager)
      expect(yield* engine.apiKeys.authenticate(digest)).toBeNull()
      // Its later events are its workspace's, and its change feed shows them.
      const stream = yield* storage.readStream(id)
      expect(stream.map((e) => [e.type, e.metadata.workspaceId])).toEqual([
        ["api_key.created", SYSTEM_WORKSPACE],
        ["api_key.updated", "legacy"],
        ["api_key.revoked", "legacy"]
      ])
      const feed = yield* engine.events.list(ctx, { types: "api_key.*" })
      expect(feed.data.map((e) => e["type"])).toEqual(["api_key.updated", "api_key.revoked"])
    }).pipe(Effect.provide(layer))
  )

  it.effect("of two managers revoked at once by each other, one stays: the workspace never loses its last", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      for (let round = 0; round < 5; round++) {
        const ctx = { workspaceId: `race_${kind}_${round}`, requestId: null, actor: null }
        const manager = { scopes: "*" as const, configured: false }
        const [first, second] = [sha256(`dsk_race_${kind}_${round}_1`), sha256(`dsk_race_${kind}_${round}_2`)]
        for (const digest of [first, second]) {
          yield* engine.apiKeys.create({ workspaceId: ctx.workspaceId, keySha256: digest, actor: "cli", scopes: ["keys:manage"] })
        }
        const outcomes = yield* Effect.all(
          [first, second].map((digest) => Effect.result(engine.apiKeys.delete(ctx, apiKeyIdOf(digest), null, manager))),
          { concurrency: "unbounded" }
        )
        expect(outcomes.map((outcome) => (outcome._tag === "Success" ? "revoked" : outcome.failure._tag)).sort()).toEqual([
          "Conflict",
          "revoked"
        ])
        const left = (yield* engine.apiKeys.listFor(ctx)).data.filter((k) => k["revoked_at"] === null)
        expect(left).toHaveLength(1)
      }
    }).pipe(Effect.provide(layer))
  )

  it.effect("last_used_at is kept beside the keys, at most once a minute per key, never older than the one kept", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const storage = yield* Storage
      const digest = sha256(`dsk_used_${kind}`)
      const id = apiKeyIdOf(digest)
      const ctx = { workspaceId: "acme", requestId: null, actor: null }
      yield* engine.apiKeys.create({ workspaceId: "acme", keySha256: digest, actor: "cli" })
      const at = (seconds: number) => new Date(Date.parse("2027-01-01T00:00:00.000Z") + seconds * 1000).toISOString()
      yield* engine.apiKeys.recordUses([{ keyId: id, at: at(0) }])
      expect((yield* engine.apiKeys.get(ctx, id)).data["last_used_at"]).toBe(at(0))
      // Another host's use within the minute, or an older one: not written.
      yield* engine.apiKeys.recordUses([{ keyId: id, at: at(59) }])
      yield* engine.apiKeys.recordUses([{ keyId: id, at: at(-120) }])
      expect((yield* engine.apiKeys.get(ctx, id)).data["last_used_at"]).toBe(at(0))
      yield* engine.apiKeys.recordUses([
        { keyId: id, at: at(61) },
        { keyId: id, at: at(60) },
        { keyId: "not a key id", at: at(60) }
      ])
      expect((yield* engine.apiKeys.listFor(ctx)).data.find((k) => k["id"] === id)?.["last_used_at"]).toBe(at(61))
      // No event: the log holds the key's creation only.
      expect((yield* storage.readStream(id)).map((e) => e.type)).toEqual(["api_key.created"])
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
