import * as fc from "fast-check"
import type { Projected } from "../../decider.js"
import { apiKeyAggregate } from "../../apiKey/aggregate.js"
import type { ApiKeyCommand, CreateApiKey, RevokeApiKey } from "../../apiKey/commands.js"
import type { ApiKeyCreated, ApiKeyEvent, ApiKeyRevoked } from "../../apiKey/events.js"
import { apiKeyIdOf } from "../../apiKey/input.js"
import { traceCommands } from "../trace.js"
import { instant, streamScript } from "./common.js"

/** A SHA-256 digest as the engine is given it: 64 lowercase hex digits. */
export const keySha256: fc.Arbitrary<string> = fc.stringMatching(/^[0-9a-f]{64}$/)
export const workspaceId: fc.Arbitrary<string> = fc.constantFrom("acme", "globex", "ws_1")

/** A key's creation, its id made from its digest as the engine makes it. */
export const createApiKey: fc.Arbitrary<CreateApiKey> = fc
  .record({ keySha256, workspaceId, at: instant })
  .map((c) => ({ type: "CreateApiKey", id: apiKeyIdOf(c.keySha256), ...c }))
export const revokeApiKey: fc.Arbitrary<RevokeApiKey> = fc
  .record({ keySha256, at: instant })
  .map(({ at, keySha256 }) => ({ type: "RevokeApiKey", id: apiKeyIdOf(keySha256), at }))

/** One key's stream: its creation, then creates (refused) and revokes (the second changes nothing). */
export const apiKeyScript: fc.Arbitrary<ReadonlyArray<ApiKeyCommand>> = createApiKey.chain((create) =>
  streamScript<ApiKeyCommand>(
    fc.constant(create),
    fc.oneof(createApiKey, revokeApiKey).map((c) => ({ ...c, id: create.id })),
    6
  )
)

export const apiKeyHistory: fc.Arbitrary<ReadonlyArray<ApiKeyEvent>> = apiKeyScript.map((s) => traceCommands(apiKeyAggregate, s).history)

export const apiKeyCreated: fc.Arbitrary<ApiKeyCreated> = createApiKey.map((c) => ({
  type: "api_key.created",
  data: { id: c.id, workspace_id: c.workspaceId, key_sha256: c.keySha256, at: c.at }
}))
export const apiKeyRevoked: fc.Arbitrary<ApiKeyRevoked> = instant.map((at) => ({ type: "api_key.revoked", data: { at } }))

export const apiKeyDocument: fc.Arbitrary<Projected> = apiKeyScript.map((s) => traceCommands(apiKeyAggregate, s).document!)

export const apiKeyArbitraries = {
  commands: { CreateApiKey: createApiKey, RevokeApiKey: revokeApiKey },
  command: fc.oneof(createApiKey, revokeApiKey) as fc.Arbitrary<ApiKeyCommand>,
  script: apiKeyScript,
  history: apiKeyHistory,
  events: { "api_key.created": apiKeyCreated, "api_key.revoked": apiKeyRevoked },
  event: fc.oneof(apiKeyCreated, apiKeyRevoked) as fc.Arbitrary<ApiKeyEvent>,
  document: apiKeyDocument
}
