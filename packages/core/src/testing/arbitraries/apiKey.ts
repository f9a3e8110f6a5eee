import * as fc from "fast-check"
import type { Projected } from "../../decider.js"
import { apiKeyAggregate } from "../../apiKey/aggregate.js"
import type { ApiKeyCommand, CreateApiKey, ManagerGuard, RevokeApiKey, UpdateApiKey } from "../../apiKey/commands.js"
import type { ApiKeyCreated, ApiKeyEvent, ApiKeyRevoked, ApiKeyUpdated } from "../../apiKey/events.js"
import { apiKeyIdOf } from "../../apiKey/input.js"
import { type ApiKeyScopes, BUILT_IN_SCOPES } from "../../apiKey/scopes.js"
import { traceCommands } from "../trace.js"
import { DAY, instant, isoAt, START, streamScript } from "./common.js"

/** A SHA-256 digest as the engine is given it: 64 lowercase hex digits. */
export const keySha256: fc.Arbitrary<string> = fc.stringMatching(/^[0-9a-f]{64}$/)
export const workspaceId: fc.Arbitrary<string> = fc.constantFrom("acme", "globex", "ws_1")

/** `"*"`, or a few scopes, `keys:manage` among them often enough that the last-manager rule is met. */
export const apiKeyScopes: fc.Arbitrary<ApiKeyScopes> = fc.oneof(
  fc.constant("*" as const),
  fc.subarray([...BUILT_IN_SCOPES], { minLength: 1, maxLength: 4 }),
  fc.subarray([...BUILT_IN_SCOPES], { minLength: 0, maxLength: 2 }).map((scopes) => [...new Set([...scopes, "keys:manage"])])
)

/** Never, or some time in 2026 or 2027: before, between and after a script's commands. */
export const expiresAt: fc.Arbitrary<string | null> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 730 * DAY }).map((offset) => isoAt(START + offset)), weight: 1 }
)

const keyName: fc.Arbitrary<string | null> = fc.oneof(fc.constant(null), fc.constantFrom("reporting", "import script", "Zapier"))

/** The engine's read of the workspace's other keys; absent for the operator's CLI. */
const guard: fc.Arbitrary<ManagerGuard | undefined> = fc.constantFrom(undefined, { othersManage: true }, { othersManage: false })

/** A key's creation, its id made from its digest as the engine makes it. */
export const createApiKey: fc.Arbitrary<CreateApiKey> = fc
  .record({ keySha256, workspaceId, at: instant, name: keyName, scopes: apiKeyScopes, expiresAt })
  .map((c) => ({ type: "CreateApiKey", id: apiKeyIdOf(c.keySha256), ...c }))
/** Some of a key's fields changed; without `guard`, as the operator changes a key. */
export const updateApiKey: fc.Arbitrary<UpdateApiKey> = fc
  .record(
    {
      keySha256,
      at: instant,
      name: fc.constantFrom("renamed", "reporting"),
      scopes: apiKeyScopes,
      expiresAt,
      guard: fc.constantFrom({ othersManage: true }, { othersManage: false })
    },
    { requiredKeys: ["keySha256", "at"] }
  )
  .map(({ keySha256, ...fields }) => ({ type: "UpdateApiKey" as const, id: apiKeyIdOf(keySha256), ...fields }))
export const revokeApiKey: fc.Arbitrary<RevokeApiKey> = fc.record({ keySha256, at: instant, guard }).map(({ at, guard, keySha256 }) => ({
  type: "RevokeApiKey",
  id: apiKeyIdOf(keySha256),
  at,
  ...(guard === undefined ? {} : { guard })
}))

/** One key's stream: its creation, then creates (refused), updates and revokes (the second changes nothing). */
export const apiKeyScript: fc.Arbitrary<ReadonlyArray<ApiKeyCommand>> = createApiKey.chain((create) =>
  streamScript<ApiKeyCommand>(
    fc.constant(create),
    fc.oneof(createApiKey, updateApiKey, updateApiKey, revokeApiKey).map((c) => ({ ...c, id: create.id })),
    6
  )
)

export const apiKeyHistory: fc.Arbitrary<ReadonlyArray<ApiKeyEvent>> = apiKeyScript.map((s) => traceCommands(apiKeyAggregate, s).history)

export const apiKeyCreated: fc.Arbitrary<ApiKeyCreated> = createApiKey.map((c) => ({
  type: "api_key.created",
  data: {
    id: c.id,
    workspace_id: c.workspaceId,
    key_sha256: c.keySha256,
    name: c.name,
    scopes: c.scopes,
    expires_at: c.expiresAt,
    at: c.at
  }
}))
export const apiKeyUpdated: fc.Arbitrary<ApiKeyUpdated> = fc
  .record({ name: fc.constant("renamed"), scopes: apiKeyScopes, expires_at: expiresAt }, { requiredKeys: [] })
  .chain((changed) => instant.map((at) => ({ type: "api_key.updated" as const, data: { changed, at } })))
export const apiKeyRevoked: fc.Arbitrary<ApiKeyRevoked> = instant.map((at) => ({ type: "api_key.revoked", data: { at } }))

export const apiKeyDocument: fc.Arbitrary<Projected> = apiKeyScript.map((s) => traceCommands(apiKeyAggregate, s).document!)

export const apiKeyArbitraries = {
  commands: { CreateApiKey: createApiKey, UpdateApiKey: updateApiKey, RevokeApiKey: revokeApiKey },
  command: fc.oneof(createApiKey, updateApiKey, revokeApiKey) as fc.Arbitrary<ApiKeyCommand>,
  script: apiKeyScript,
  history: apiKeyHistory,
  events: { "api_key.created": apiKeyCreated, "api_key.updated": apiKeyUpdated, "api_key.revoked": apiKeyRevoked },
  event: fc.oneof(apiKeyCreated, apiKeyUpdated, apiKeyRevoked) as fc.Arbitrary<ApiKeyEvent>,
  document: apiKeyDocument
}
