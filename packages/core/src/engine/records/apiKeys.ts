import { Effect, Result } from "effect"
import {
  apiKeyAggregate,
  type ApiKeyEvent,
  apiKeyIdOf,
  type ApiKeyOwner,
  isApiKeyId,
  isKeySha256,
  ownerOf,
  parseApiKeyCreate,
  SYSTEM_WORKSPACE
} from "../../apiKey/index.js"
import { NotFound } from "../../errors.js"
import type { Expr } from "../../query/ast.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext, Versioned } from "../contract/Engine.js"
import type { Handled } from "../commands/decide.js"
import { handleCommand } from "../commands/handleCommand.js"
import { queryAll } from "../base/reads.js"

/**
 * Key management runs in the reserved workspace: the key's stream and document live there, and the
 * workspace the key is for is data of the key. `actor` (the CLI, an operator's script) is recorded in
 * the events' metadata.
 */
const systemContext = (actor: string | null): RequestContext => ({ workspaceId: SYSTEM_WORKSPACE, requestId: null, actor })

const versioned = ({ projected, version }: Handled<ApiKeyEvent, unknown>): Versioned => ({
  data: projected?.data ?? {},
  version
})

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const byCreation = { field: { name: "created_at", type: "timestamp" }, direction: "asc" } as const

export const makeApiKeys = (deps: EngineDeps) => {
  const create = (input: { readonly workspaceId: string; readonly keySha256: string; readonly actor: string | null }) =>
    Effect.gen(function* () {
      const parsed = parseApiKeyCreate(input)
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const { keySha256, workspaceId } = parsed.success
      const id = apiKeyIdOf(keySha256)
      return versioned(
        yield* handleCommand(deps, apiKeyAggregate, {
          ctx: systemContext(input.actor),
          streamId: id,
          // The id is the digest's prefix: the stream may exist (the same key, or one sharing it).
          stream: "any",
          command: ({ at }) => Effect.succeed({ type: "CreateApiKey" as const, id, at, workspaceId, keySha256 })
        })
      )
    })

  const revoke = (input: { readonly keyId: string; readonly actor: string | null }) =>
    // Anything else names no key, and need not reach storage (which refuses some text, such as U+0000).
    !isApiKeyId(input.keyId)
      ? Effect.fail(new NotFound({ resource: "api_key", id: input.keyId }))
      : Effect.map(
          handleCommand(deps, apiKeyAggregate, {
            ctx: systemContext(input.actor),
            streamId: input.keyId,
            command: ({ at }) => Effect.succeed({ type: "RevokeApiKey" as const, id: input.keyId, at })
          }),
          versioned
        )

  const list = (workspaceId: string | null) =>
    Effect.gen(function* () {
      const where: Expr =
        workspaceId === null
          ? { _tag: "True" }
          : { _tag: "Compare", field: { name: "workspace_id", type: "id" }, op: "eq", value: workspaceId }
      const docs = yield* queryAll(deps, "api_key", SYSTEM_WORKSPACE, where, byCreation)
      // Storage breaks ties by document id, the digest; keys made in the same millisecond list by key id.
      const data = docs
        .map((doc) => doc.data)
        .sort((a, b) => byText(String(a["created_at"]), String(b["created_at"])) || byText(String(a["id"]), String(b["id"])))
      return { data, next_cursor: null }
    })

  const authenticate = (keySha256: string) =>
    isKeySha256(keySha256)
      ? Effect.map(deps.storage.getDocument("api_key", SYSTEM_WORKSPACE, keySha256), (doc): ApiKeyOwner | null =>
          doc === null ? null : ownerOf(doc.data)
        )
      : Effect.succeed(null)

  return { create, revoke, list, authenticate }
}
