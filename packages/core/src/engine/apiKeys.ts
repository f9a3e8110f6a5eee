import { Effect, Result } from "effect"
import {
  type ApiKeyEvent,
  type ApiKeyOwner,
  apiKeyDecider,
  apiKeyIdOf,
  isApiKeyId,
  isKeySha256,
  ownerOf,
  parseApiKeyCreate,
  projectApiKey,
  SYSTEM_WORKSPACE
} from "../apiKey/index.js"
import { NotFound } from "../errors.js"
import type { Expr } from "../query/ast.js"
import type { StreamDocuments } from "./documents.js"
import type { EngineDeps } from "./deps.js"
import type { RequestContext, Versioned } from "./Engine.js"
import { documentWrite, type Executed, execute, foldProjection } from "./execute.js"
import { queryAll } from "./reads.js"

/**
 * Key management runs in the reserved workspace: the key's stream and document live there, and the
 * workspace the key is for is data of the key. `actor` (the CLI, an operator's script) is recorded in
 * the events' metadata.
 */
const systemContext = (actor: string | null): RequestContext => ({ workspaceId: SYSTEM_WORKSPACE, requestId: null, actor })

/** A key's document is stored under its digest, so authenticating a presented key is one getDocument. */
export const apiKeyDocuments: StreamDocuments<ApiKeyEvent> = (all, _fresh, version) => {
  const created = all.find((event) => event.type === "api_key.created")
  if (created === undefined) return []
  return [documentWrite("api_key", SYSTEM_WORKSPACE, created.data.key_sha256, version, foldProjection(projectApiKey, all))]
}

const versioned = ({ all, version }: Executed<ApiKeyEvent>): Versioned => ({
  data: foldProjection(projectApiKey, all)?.data ?? {},
  version
})

const byText = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0

const byCreation = { field: { name: "created_at", type: "timestamp" }, direction: "asc" } as const

export const makeApiKeys = (deps: EngineDeps) => {
  const run = (actor: string | null, id: string, creates: boolean) => ({
    ctx: systemContext(actor),
    streamId: id,
    resource: "api_key",
    decider: apiKeyDecider,
    ifMatch: null,
    creates,
    documents: apiKeyDocuments
  })

  const create = (input: { readonly workspaceId: string; readonly keySha256: string; readonly actor: string | null }) =>
    Effect.gen(function*() {
      const parsed = parseApiKeyCreate(input)
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const { keySha256, workspaceId } = parsed.success
      const id = apiKeyIdOf(keySha256)
      return versioned(yield* execute(deps, {
        ...run(input.actor, id, true),
        command: ({ at }) => Effect.succeed({ type: "CreateApiKey" as const, id, at, workspaceId, keySha256 })
      }))
    })

  const revoke = (input: { readonly keyId: string; readonly actor: string | null }) =>
    // Anything else names no key, and need not reach storage (which refuses some text, such as U+0000).
    !isApiKeyId(input.keyId)
      ? Effect.fail(new NotFound({ resource: "api_key", id: input.keyId }))
      : Effect.map(
        execute(deps, {
          ...run(input.actor, input.keyId, false),
          command: ({ at }) => Effect.succeed({ type: "RevokeApiKey" as const, id: input.keyId, at })
        }),
        versioned
      )

  const list = (workspaceId: string | null) =>
    Effect.gen(function*() {
      const where: Expr = workspaceId === null
        ? { _tag: "True" }
        : { _tag: "Compare", field: { name: "workspace_id", type: "id" }, op: "eq", value: workspaceId }
      const docs = yield* queryAll(deps, "api_key", SYSTEM_WORKSPACE, where, byCreation)
      // Storage breaks ties by document id, the digest; keys made in the same millisecond list by key id.
      const data = docs.map((doc) => doc.data).sort((a, b) =>
        byText(String(a["created_at"]), String(b["created_at"])) || byText(String(a["id"]), String(b["id"])))
      return { data, next_cursor: null }
    })

  const authenticate = (keySha256: string) =>
    isKeySha256(keySha256)
      ? Effect.map(
        deps.storage.getDocument("api_key", SYSTEM_WORKSPACE, keySha256),
        (doc): ApiKeyOwner | null => doc === null ? null : ownerOf(doc.data)
      )
      : Effect.succeed(null)

  return { create, revoke, list, authenticate }
}
