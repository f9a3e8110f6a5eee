import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { KEY_FEED_TYPES } from "../record/recordTypeSet.js"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import { apiKeyAggregate, upcastApiKey } from "./aggregate.js"
import { apiKeyDecider } from "./decider.js"
import { ApiKeyEvent } from "./events.js"
import { apiKeyIdOf, isKeySha256, isWorkspaceId, parseApiKeyBody, parseApiKeyCreate, parseApiKeyPatch, SYSTEM_WORKSPACE } from "./input.js"
import { apiKeyPayload, apiKeyPayloadInOrder } from "./payload.js"
import { apiKeyView, ownerOf, projectApiKey } from "./projection.js"
import { BUILT_IN_SCOPES, knownScopes, scopeNotHeld } from "./scopes.js"

const given = DeciderSpecification.for(apiKeyDecider)

const digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
const id = apiKeyIdOf(digest)
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const t2 = "2026-01-03T00:00:00.000Z"
const t3 = "2026-01-04T00:00:00.000Z"
const create = {
  type: "CreateApiKey",
  id,
  at: t0,
  workspaceId: "acme",
  keySha256: digest,
  name: "reporting",
  scopes: ["contacts:read", "keys:manage"],
  expiresAt: null
} as const
const created: ApiKeyEvent = {
  type: "api_key.created",
  data: {
    id,
    workspace_id: "acme",
    key_sha256: digest,
    name: "reporting",
    scopes: ["contacts:read", "keys:manage"],
    expires_at: null,
    at: t0
  }
}
const revoked: ApiKeyEvent = { type: "api_key.revoked", data: { at: t1 } }
/** A key created before names, scopes and expiries: as it was stored then, and as it is read. */
const legacy = { type: "api_key.created", data: { id, workspace_id: "acme", key_sha256: digest, at: t0 } }

const alone = { othersManage: false }
const accompanied = { othersManage: true }

describe("apiKeyDecider", () => {
  it("records a new key by its digest, with its name, scopes and expiry", () => {
    given([]).when(create).then([created])
    const expiring = { ...create, expiresAt: t2 }
    given([])
      .when(expiring)
      .then([{ type: "api_key.created", data: { ...created.data, expires_at: t2 } } as ApiKeyEvent])
  })
  it("refuses a key that would be expired already", () => {
    given([])
      .when({ ...create, expiresAt: t0 })
      .thenFails("ValidationError", (e) => expect(e.details).toEqual([{ path: "expires_at", message: "must be later than now" }]))
  })
  it("refuses a key id that is taken, whether the key is active or revoked", () => {
    given([created])
      .when({ ...create, at: t2 })
      .thenFails("Conflict", (e) => expect(e.details[0]?.id).toBe(id))
    given([created, revoked])
      .when({ ...create, at: t2 })
      .thenFails("Conflict")
  })
  it("revokes an active key once; revoking again records nothing", () => {
    given([created]).when({ type: "RevokeApiKey", id, at: t1 }).then([revoked])
    given([created, revoked]).when({ type: "RevokeApiKey", id, at: t2 }).thenNothingHappens()
    given([created, revoked]).when({ type: "RevokeApiKey", id, at: t2, guard: alone }).thenNothingHappens()
  })
  it("does not find a key that was never created", () => {
    given([])
      .when({ type: "RevokeApiKey", id, at: t1 })
      .thenFails("NotFound", (e) => expect(e.id).toBe(id))
    given([]).when({ type: "UpdateApiKey", id, at: t1, name: "x" }).thenFails("NotFound")
  })

  describe("updates", () => {
    it("record only what changes: a name, scopes as a set, an expiry", () => {
      given([created])
        .when({ type: "UpdateApiKey", id, at: t1, name: "nightly", scopes: ["keys:manage", "contacts:read"], expiresAt: null })
        .then([{ type: "api_key.updated", data: { changed: { name: "nightly" }, at: t1 } }])
      given([created])
        .when({ type: "UpdateApiKey", id, at: t1, scopes: "*", expiresAt: t3, guard: accompanied })
        .then([{ type: "api_key.updated", data: { changed: { scopes: "*", expires_at: t3 }, at: t1 } }])
      given([created]).when({ type: "UpdateApiKey", id, at: t1, name: "reporting" }).thenNothingHappens()
    })
    it("refuse a revoked key, an expired key, and an expiry that has passed", () => {
      given([created, revoked]).when({ type: "UpdateApiKey", id, at: t2, name: "x" }).thenFails("Conflict")
      const expiring: ApiKeyEvent = { type: "api_key.created", data: { ...created.data, expires_at: t1 } }
      given([expiring])
        .when({ type: "UpdateApiKey", id, at: t1, expiresAt: null })
        .thenFails("Conflict", (e) => expect(e.message).toContain(`expired at ${t1}`))
      given([created])
        .when({ type: "UpdateApiKey", id, at: t2, expiresAt: t1 })
        .thenFails("ValidationError", (e) => expect(e.details[0]?.path).toBe("expires_at"))
    })
  })

  describe("the workspace's last key that may manage keys for good", () => {
    it("cannot be revoked, lose keys:manage, be given an expiry or expire sooner", () => {
      given([created])
        .when({ type: "RevokeApiKey", id, at: t1, guard: alone })
        .thenFails("Conflict", (e) => expect(e.details).toEqual([{ path: "id", message: "cannot be revoked", id }]))
      given([created])
        .when({ type: "UpdateApiKey", id, at: t1, scopes: ["contacts:read"], guard: alone })
        .thenFails("Conflict", (e) => expect(e.details[0]?.path).toBe("scopes"))
      given([created])
        .when({ type: "UpdateApiKey", id, at: t1, expiresAt: t3, guard: alone })
        .thenFails("Conflict", (e) => expect(e.details[0]).toMatchObject({ path: "expires_at", message: "cannot be given an expiry" }))
      const expiring: ApiKeyEvent = { type: "api_key.created", data: { ...created.data, expires_at: t3 } }
      given([expiring])
        .when({ type: "UpdateApiKey", id, at: t1, expiresAt: t2, guard: alone })
        .thenFails("Conflict", (e) => expect(e.details[0]?.message).toBe("cannot expire sooner"))
    })
    it("may be renamed, keep or widen its power, or have its expiry put off or removed", () => {
      given([created])
        .when({ type: "UpdateApiKey", id, at: t1, name: "admin", scopes: "*", guard: alone })
        .then([{ type: "api_key.updated", data: { changed: { name: "admin", scopes: "*" }, at: t1 } }])
      const expiring: ApiKeyEvent = { type: "api_key.created", data: { ...created.data, expires_at: t2 } }
      given([expiring])
        .when({ type: "UpdateApiKey", id, at: t1, expiresAt: t3, guard: alone })
        .then([{ type: "api_key.updated", data: { changed: { expires_at: t3 }, at: t1 } }])
      given([expiring])
        .when({ type: "UpdateApiKey", id, at: t1, expiresAt: null, guard: alone })
        .then([{ type: "api_key.updated", data: { changed: { expires_at: null }, at: t1 } }])
    })
    it("may go when another key manages keys for good, or when the operator says so", () => {
      given([created]).when({ type: "RevokeApiKey", id, at: t1, guard: accompanied }).then([revoked])
      given([created]).when({ type: "RevokeApiKey", id, at: t1 }).then([revoked])
      given([created])
        .when({ type: "UpdateApiKey", id, at: t1, scopes: ["contacts:read"], guard: accompanied })
        .then([{ type: "api_key.updated", data: { changed: { scopes: ["contacts:read"] }, at: t1 } }])
    })
    it("does not hold a key that does not manage keys, or no longer does (expired)", () => {
      const reader: ApiKeyEvent = { type: "api_key.created", data: { ...created.data, scopes: ["contacts:read"] } }
      given([reader])
        .when({ type: "RevokeApiKey", id, at: t1, guard: alone })
        .then([{ type: "api_key.revoked", data: { at: t1 } }])
      const expired: ApiKeyEvent = { type: "api_key.created", data: { ...created.data, expires_at: t1 } }
      given([expired])
        .when({ type: "RevokeApiKey", id, at: t2, guard: alone })
        .then([{ type: "api_key.revoked", data: { at: t2 } }])
    })
  })

  it("reads a key made before scopes as one without a name that may do everything and never expires", () => {
    const read = upcastApiKey(legacy)
    expect(read).toEqual({
      type: "api_key.created",
      data: { id, workspace_id: "acme", key_sha256: digest, name: null, scopes: "*", expires_at: null, at: t0 }
    })
    expect(Result.isSuccess(Schema.decodeUnknownResult(ApiKeyEvent)(read))).toBe(true)
    expect(upcastApiKey(created)).toBe(created)
  })
})

describe("projectApiKey", () => {
  it("keeps id, workspace, name, scopes, expiry and times, never the digest", () => {
    const active = [created].reduce(projectApiKey, null)
    expect(active).toEqual({
      data: {
        id,
        workspace_id: "acme",
        name: "reporting",
        scopes: ["contacts:read", "keys:manage"],
        expires_at: null,
        created_at: t0,
        revoked_at: null
      },
      deletedAt: null
    })
    expect(JSON.stringify(active)).not.toContain(digest.slice(12))
    expect(ownerOf(active!.data)).toEqual({ workspaceId: "acme", keyId: id, scopes: ["contacts:read", "keys:manage"], expiresAt: null })
  })
  it("applies an update's changes", () => {
    const updated = [
      created,
      { type: "api_key.updated", data: { changed: { scopes: ["deals:read"], expires_at: t3 }, at: t1 } } as ApiKeyEvent
    ].reduce(projectApiKey, null)
    expect(updated?.data).toMatchObject({ scopes: ["deals:read"], expires_at: t3, name: "reporting" })
    expect(ownerOf(updated!.data)?.expiresAt).toBe(t3)
  })
  it("a revoked key grants nothing; an expired one still names its owner, with the expiry", () => {
    const gone = [created, revoked].reduce(projectApiKey, null)
    expect(gone?.data["revoked_at"]).toBe(t1)
    expect(ownerOf(gone!.data)).toBeNull()
  })
  it("a document stored before scopes existed grants everything, never expires, and shows so", () => {
    const old = { id, workspace_id: "acme", created_at: t0, revoked_at: null }
    expect(ownerOf(old)).toEqual({ workspaceId: "acme", keyId: id, scopes: "*", expiresAt: null })
    expect(apiKeyView(old, t2)).toEqual({
      id,
      name: null,
      scopes: "*",
      expires_at: null,
      last_used_at: t2,
      created_at: t0,
      revoked_at: null
    })
  })
  it("announces a key in the feed as the API shows it, in the API's key order, and an update's changed fields", () => {
    const record = apiKeyView([created].reduce(projectApiKey, null)!.data, null)
    const update: ApiKeyEvent = { type: "api_key.updated", data: { changed: { name: "x" }, at: t1 } }
    expect(apiKeyPayload(update, record)).toEqual({ api_key: record, changed_fields: ["name"] })
    // As PostgreSQL's jsonb hands it back: keys by length.
    const shuffled = { changed_fields: ["name"], api_key: Object.fromEntries(Object.entries(record).reverse()) }
    const ordered = apiKeyPayloadInOrder(shuffled)
    expect(JSON.stringify(ordered)).toBe(JSON.stringify({ api_key: record, changed_fields: ["name"] }))
    expect(JSON.stringify(apiKeyPayload(created, record))).not.toContain(digest)
  })
})

describe("scopes a key may grant", () => {
  it("are those it holds; `*` only by a key with `*`", () => {
    expect(scopeNotHeld("*", ["keys:manage"])).toBeNull()
    expect(scopeNotHeld("*", "*")).toBeNull()
    expect(scopeNotHeld(["keys:manage", "contacts:read"], ["contacts:read"])).toBeNull()
    expect(scopeNotHeld(["keys:manage", "contacts:read"], ["contacts:read", "deals:write"])).toBe("deals:write")
    expect(scopeNotHeld(["keys:manage"], "*")).toBe("*")
  })
  it("the engine knows the built-in ones and its plug-ins'", () => {
    expect(knownScopes(["notes"])).toEqual([...BUILT_IN_SCOPES, "notes:read", "notes:write"])
  })
})

describe("API key input", () => {
  const known = knownScopes([])
  it("key ids are key_ and the digest's first 12 hex digits", () => {
    expect(id).toBe("key_9f86d081884c")
  })
  it("accepts workspace ids of the API's syntax and lowercase hex digests only", () => {
    expect(Result.isSuccess(parseApiKeyCreate({ workspaceId: "acme_2-b", keySha256: digest }, known))).toBe(true)
    const refused = parseApiKeyCreate({ workspaceId: "no spaces", keySha256: digest.toUpperCase() }, known)
    expect(Result.isFailure(refused) && refused.failure.details.map((d) => d.path)).toEqual(["workspace_id", "key_sha256"])
    expect(isKeySha256(digest.slice(1))).toBe(false)
    expect(isWorkspaceId("x".repeat(65))).toBe(false)
  })
  it("the operator's key has no name, every scope and no expiry unless told", () => {
    expect(parseApiKeyCreate({ workspaceId: "acme", keySha256: digest }, known)).toEqual(
      Result.succeed({ workspaceId: "acme", keySha256: digest, name: null, scopes: "*", expiresAt: null })
    )
    const told = parseApiKeyCreate(
      { workspaceId: "acme", keySha256: digest, name: "n", scopes: ["deals:read"], expiresAt: "2027-01-01T01:00:00+01:00" },
      known
    )
    expect(told).toEqual(
      Result.succeed({ workspaceId: "acme", keySha256: digest, name: "n", scopes: ["deals:read"], expiresAt: "2027-01-01T00:00:00.000Z" })
    )
    const bad = parseApiKeyCreate({ workspaceId: "acme", keySha256: digest, scopes: ["deals:delete"] }, known)
    expect(Result.isFailure(bad) && bad.failure.details).toEqual([{ path: "scopes[0]", message: "is not a known scope" }])
  })
  it("the reserved workspace is outside the workspace id syntax, so no key can be issued for it", () => {
    expect(isWorkspaceId(SYSTEM_WORKSPACE)).toBe(false)
    expect(Result.isFailure(parseApiKeyCreate({ workspaceId: SYSTEM_WORKSPACE, keySha256: digest }, known))).toBe(true)
  })
  it("a POST needs a name and scopes; expires_at is an instant with an offset, or null", () => {
    expect(parseApiKeyBody({ name: "r", scopes: ["contacts:read", "contacts:read"] }, known)).toEqual(
      Result.succeed({ name: "r", scopes: ["contacts:read"], expiresAt: null })
    )
    const missing = parseApiKeyBody({}, known)
    expect(Result.isFailure(missing) && missing.failure.details.map((d) => d.path)).toEqual(["name", "scopes"])
    const bad = parseApiKeyBody({ name: " ", scopes: [], expires_at: "tomorrow", key: "dsk_x", extra: 1 }, known)
    expect(Result.isFailure(bad) && bad.failure.details).toEqual([
      { path: "name", message: "must be a string of 1 to 200 characters, not blank" },
      { path: "scopes", message: "must name at least one scope" },
      { path: "expires_at", message: "must be a timestamp with an offset, e.g. 2026-01-02T15:04:05Z" },
      { path: "key", message: "is read-only" },
      { path: "extra", message: "is not a known field" }
    ])
    const star = parseApiKeyBody({ name: "r", scopes: ["*"] }, known)
    expect(Result.isFailure(star) && star.failure.details[0]).toEqual({ path: "scopes[0]", message: '"*" stands alone, not in a list' })
    expect(Result.isFailure(parseApiKeyBody([], known))).toBe(true)
  })
  it("a PATCH changes only what it gives", () => {
    expect(parseApiKeyPatch({}, known)).toEqual(Result.succeed({}))
    expect(parseApiKeyPatch({ expires_at: null, scopes: "*" }, known)).toEqual(Result.succeed({ scopes: "*", expiresAt: null }))
  })
})

describe("the key events in the change feed", () => {
  it("are every type of the aggregate's Schema", () => {
    const types = ApiKeyEvent.members.map((member) => member.fields.type.literal)
    expect([...KEY_FEED_TYPES].sort()).toEqual([...types].sort())
    expect(apiKeyAggregate.settings).toBe(true)
  })
})
