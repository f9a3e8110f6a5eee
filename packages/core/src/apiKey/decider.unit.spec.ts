import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import { apiKeyDecider } from "./decider.js"
import type { ApiKeyEvent } from "./events.js"
import { apiKeyIdOf, isKeySha256, isWorkspaceId, parseApiKeyCreate, SYSTEM_WORKSPACE } from "./input.js"
import { ownerOf, projectApiKey } from "./projection.js"

const given = DeciderSpecification.for(apiKeyDecider)

const digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
const id = apiKeyIdOf(digest)
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const t2 = "2026-01-03T00:00:00.000Z"
const create = { type: "CreateApiKey", id, at: t0, workspaceId: "acme", keySha256: digest } as const
const created: ApiKeyEvent = { type: "api_key.created", data: { id, workspace_id: "acme", key_sha256: digest, at: t0 } }
const revoked: ApiKeyEvent = { type: "api_key.revoked", data: { at: t1 } }

describe("apiKeyDecider", () => {
  it("records a new key by its digest", () => {
    given([]).when(create).then([created])
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
  })
  it("does not find a key that was never created", () => {
    given([])
      .when({ type: "RevokeApiKey", id, at: t1 })
      .thenFails("NotFound", (e) => expect(e.id).toBe(id))
  })
})

describe("projectApiKey", () => {
  it("shows id, workspace and times, never the digest", () => {
    const active = [created].reduce(projectApiKey, null)
    expect(active).toEqual({ data: { id, workspace_id: "acme", created_at: t0, revoked_at: null }, deletedAt: null })
    expect(JSON.stringify(active)).not.toContain(digest.slice(12))
    expect(ownerOf(active!.data)).toEqual({ workspaceId: "acme", keyId: id, scopes: "*" })
  })
  it("a revoked key grants nothing", () => {
    const gone = [created, revoked].reduce(projectApiKey, null)
    expect(gone?.data["revoked_at"]).toBe(t1)
    expect(ownerOf(gone!.data)).toBeNull()
  })
})

describe("API key input", () => {
  it("key ids are key_ and the digest's first 12 hex digits", () => {
    expect(id).toBe("key_9f86d081884c")
  })
  it("accepts workspace ids of the API's syntax and lowercase hex digests only", () => {
    expect(Result.isSuccess(parseApiKeyCreate({ workspaceId: "acme_2-b", keySha256: digest }))).toBe(true)
    const refused = parseApiKeyCreate({ workspaceId: "no spaces", keySha256: digest.toUpperCase() })
    expect(Result.isFailure(refused) && refused.failure.details.map((d) => d.path)).toEqual(["workspace_id", "key_sha256"])
    expect(isKeySha256(digest.slice(1))).toBe(false)
    expect(isWorkspaceId("x".repeat(65))).toBe(false)
  })
  it("the reserved workspace is outside the workspace id syntax, so no key can be issued for it", () => {
    expect(isWorkspaceId(SYSTEM_WORKSPACE)).toBe(false)
    expect(Result.isFailure(parseApiKeyCreate({ workspaceId: SYSTEM_WORKSPACE, keySha256: digest }))).toBe(true)
  })
})
