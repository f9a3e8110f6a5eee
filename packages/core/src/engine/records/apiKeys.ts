import { Effect, Result } from "effect"
import {
  type ApiKeyCreate,
  type ApiKeyEvent,
  type ApiKeyFields,
  type ApiKeyOwner,
  apiKeyAggregate,
  apiKeyIdOf,
  apiKeyPayload,
  apiKeyView,
  grants,
  isApiKeyId,
  isKeySha256,
  KEYS_MANAGE,
  knownScopes,
  ownerOf,
  parseApiKeyBody,
  parseApiKeyCreate,
  parseApiKeyPatch,
  projectApiKey,
  scopeNotHeld,
  scopesOf,
  SYSTEM_WORKSPACE
} from "../../apiKey/index.js"
import type { ApiKeyScopes } from "../../apiKey/scopes.js"
import type { Projected } from "../../decider.js"
import { Conflict, NotFound, ScopeNotGranted, ValidationError } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { Expr } from "../../query/ast.js"
import type { StoredDocument } from "../../storage/documents.js"
import type { EngineDeps } from "../base/deps.js"
import { queryAll } from "../base/reads.js"
import type { Settings } from "../base/settings.js"
import { storableBody } from "../base/storable.js"
import { readState } from "../base/streamStates.js"
import type { AlsoContext } from "../commands/commandOptions.js"
import { handleCommand } from "../commands/handleCommand.js"
import type { IfMatch, KeyManager, KeyUse, RequestContext, Versioned } from "../contract/Engine.js"

/**
 * `last_used_at` is not an event. A key used all day would add an event a minute to its workspace's
 * log and change feed (1,440 a day per key), each announcing nothing a consumer acts on, and the
 * key's stream (read whole by every key command) would grow without end. It is kept instead as one
 * document per key (collection `api_key_use`, in SYSTEM_WORKSPACE, under the key id), overwritten in
 * place: a host notes each use in memory (http's auth/keyUses.ts), at most once a minute per key, and
 * a background fiber writes what it noted in one commit, never on a request's path. Writing skips a
 * key whose kept use is less than a minute older (another host wrote it), so a key in use costs about
 * one small write a minute whatever the number of hosts. It is the one fact about a key that a
 * rebuild of the log cannot give back, and the one a lost write may leave a minute behind.
 */
export const KEY_USE_EVERY_MILLIS = 60_000

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const byCreation = { field: { name: "created_at", type: "timestamp" }, direction: "asc" } as const

const ofWorkspace = (workspaceId: string): Expr => ({
  _tag: "Compare",
  field: { name: "workspace_id", type: "id" },
  op: "eq",
  value: workspaceId
})

/** Storage breaks ties by document id, the digest; keys made in the same millisecond list by key id. */
const oldestFirst = (docs: ReadonlyArray<StoredDocument>): ReadonlyArray<JsonObject> =>
  docs
    .map((doc) => doc.data)
    .sort((a, b) => byText(String(a["created_at"]), String(b["created_at"])) || byText(String(a["id"]), String(b["id"])))

/** A key that may manage keys and will keep that power: not revoked, never expires, with `keys:manage`. */
const managesForGood = (data: JsonObject): boolean =>
  data["revoked_at"] === null && (data["expires_at"] ?? null) === null && grants(scopesOf(data["scopes"]), KEYS_MANAGE)

const scopeRefused = (scope: string) =>
  new ScopeNotGranted({ message: `this API key may not grant the scope ${scope}: it does not hold it`, scope })

const alreadyExists = (id: string) =>
  new Conflict({ message: `API key ${id} already exists`, details: [{ path: "id", message: "already exists", id }] })

export const makeApiKeys = (deps: EngineDeps) => {
  /** The scopes a key may be given here: the built-in ones and this engine's plug-ins'. */
  const known = knownScopes(deps.recordTypes.plugins.map((plugin) => plugin.plural))

  const lastUses = (ids: ReadonlyArray<string>) =>
    ids.length === 0
      ? Effect.succeed(new Map<string, string>())
      : Effect.map(
          deps.storage.getDocuments("api_key_use", SYSTEM_WORKSPACE, ids),
          (docs) =>
            new Map(
              docs.flatMap((doc) => {
                const at = doc.data["last_used_at"]
                return typeof at === "string" ? [[doc.id, at] as const] : []
              })
            )
        )

  /** A key's document as the API shows it, with when it was last used. */
  const shown = (data: JsonObject) =>
    Effect.map(lastUses([String(data["id"])]), (uses) => apiKeyView(data, uses.get(String(data["id"])) ?? null))

  /** What each new event is announced with in the change feed: the key after it, as shown. */
  const announced = ({ before, fresh, streamId }: AlsoContext<ApiKeyEvent>) =>
    Effect.gen(function* () {
      const used = (yield* lastUses([streamId])).get(streamId) ?? null
      let record: Projected | null = before
      const payloads = fresh.map(({ event }) => {
        record = projectApiKey(record, event)
        return record === null ? null : apiKeyPayload(event, apiKeyView(record.data, used))
      })
      return { streams: [], documents: [], payloads }
    })

  /**
   * Whether another key of the workspace may manage keys for good (managesForGood), read at the
   * settings version the command's commit checks: a key command moves that version on, so a
   * concurrent change to any of the workspace's keys makes this command decide again. A key the
   * host was given counts as one (it never expires and no request can revoke it).
   */
  const othersManage = (ctx: RequestContext, keyId: string, manager: KeyManager) => (settings: Settings) =>
    manager.configured
      ? Effect.succeed(true)
      : Effect.gen(function* () {
          yield* settings.version
          const docs = yield* queryAll(deps, "api_key", SYSTEM_WORKSPACE, ofWorkspace(ctx.workspaceId))
          return docs.some((doc) => doc.data["id"] !== keyId && managesForGood(doc.data))
        })

  /**
   * The document of the key with this id, of whichever workspace: every key's document is in
   * SYSTEM_WORKSPACE from its first commit on, and stays live (a revoked key's too), so this is one
   * read of one workspace where the key's stream could be in any workspace's log.
   */
  const keyDocument = (id: string) =>
    Effect.map(
      deps.storage.queryDocuments("api_key", SYSTEM_WORKSPACE, {
        where: { _tag: "Compare", field: { name: "id", type: "id" }, op: "eq", value: id },
        scope: "live",
        sort: byCreation,
        after: null,
        limit: 1
      }),
      ([doc]) => doc ?? null
    )

  /** A new key in ctx's workspace; Conflict when its id is taken (by any workspace's key). */
  const make = (ctx: RequestContext, keySha256: string, fields: ApiKeyFields) =>
    Effect.gen(function* () {
      const id = apiKeyIdOf(keySha256)
      // Key ids are unique across workspaces: another workspace's key is found by its document.
      if ((yield* keyDocument(id)) !== null) return yield* alreadyExists(id)
      return yield* handleCommand(deps, apiKeyAggregate, {
        ctx,
        streamId: id,
        stream: "new",
        command: ({ at }) => Effect.succeed({ type: "CreateApiKey" as const, id, at, workspaceId: ctx.workspaceId, keySha256, ...fields }),
        also: announced
      })
    })

  const documentOf = ({ projected, version }: { readonly projected: Projected | null; readonly version: number }): Versioned => ({
    data: projected?.data ?? {},
    version
  })

  const answer = (handled: { readonly projected: Projected | null; readonly version: number }) =>
    Effect.map(shown(handled.projected?.data ?? {}), (data): Versioned => ({ data, version: handled.version }))

  // The operator's calls (dealstream keys).

  const create = (input: ApiKeyCreate & { readonly actor: string | null }) =>
    Effect.gen(function* () {
      const parsed = parseApiKeyCreate(input, known)
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const { expiresAt, keySha256, name, scopes, workspaceId } = parsed.success
      return documentOf(yield* make({ workspaceId, requestId: null, actor: input.actor }, keySha256, { name, scopes, expiresAt }))
    })

  const revoke = (input: { readonly keyId: string; readonly actor: string | null }) =>
    Effect.gen(function* () {
      // Anything else names no key, and need not reach storage (which refuses some text, such as U+0000).
      if (!isApiKeyId(input.keyId)) return yield* new NotFound({ resource: "api_key", id: input.keyId })
      const workspaceId = (yield* keyDocument(input.keyId))?.data["workspace_id"]
      if (typeof workspaceId !== "string") return yield* new NotFound({ resource: "api_key", id: input.keyId })
      const ctx = { workspaceId, requestId: null, actor: input.actor }
      return documentOf(
        yield* handleCommand(deps, apiKeyAggregate, {
          ctx,
          streamId: input.keyId,
          command: ({ at }) => Effect.succeed({ type: "RevokeApiKey" as const, id: input.keyId, at }),
          also: announced
        })
      )
    })

  const list = (workspaceId: string | null) =>
    Effect.map(
      queryAll(deps, "api_key", SYSTEM_WORKSPACE, workspaceId === null ? { _tag: "True" } : ofWorkspace(workspaceId), byCreation),
      (docs) => ({
        data: oldestFirst(docs),
        next_cursor: null
      })
    )

  const authenticate = (keySha256: string) =>
    isKeySha256(keySha256)
      ? Effect.map(deps.storage.getDocument("api_key", SYSTEM_WORKSPACE, keySha256), (doc): ApiKeyOwner | null =>
          doc === null ? null : ownerOf(doc.data)
        )
      : Effect.succeed(null)

  // The API's calls, in the caller's workspace.

  const listFor = (ctx: RequestContext) =>
    Effect.gen(function* () {
      const docs = oldestFirst(yield* queryAll(deps, "api_key", SYSTEM_WORKSPACE, ofWorkspace(ctx.workspaceId), byCreation))
      const uses = yield* lastUses(docs.map((data) => String(data["id"])))
      return { data: docs.map((data) => apiKeyView(data, uses.get(String(data["id"])) ?? null)), next_cursor: null }
    })

  const get = (ctx: RequestContext, id: string) =>
    Effect.gen(function* () {
      if (!isApiKeyId(id)) return yield* new NotFound({ resource: "api_key", id })
      const stream = yield* readState(deps.storage, apiKeyAggregate, ctx, id)
      if (stream.version <= 0 || stream.projected === null) return yield* new NotFound({ resource: "api_key", id })
      return yield* answer(stream)
    })

  const granted = (manager: KeyManager, requested: ApiKeyScopes | undefined) => {
    const missing = requested === undefined ? null : scopeNotHeld(manager.scopes, requested)
    return missing === null ? Effect.void : Effect.fail(scopeRefused(missing))
  }

  const createFor = (ctx: RequestContext, body: unknown, keySha256: string, manager: KeyManager) =>
    Effect.gen(function* () {
      if (!isKeySha256(keySha256)) return yield* ValidationError.at("key_sha256", "must be 64 lowercase hex digits")
      const parsed = parseApiKeyBody(yield* storableBody(body), known)
      if (Result.isFailure(parsed)) return yield* parsed.failure
      yield* granted(manager, parsed.success.scopes)
      return yield* answer(yield* make(ctx, keySha256, parsed.success))
    }).pipe(
      // A new stream, made without If-Match: neither can happen.
      Effect.catchTags({ NotFound: Effect.die, PreconditionFailed: Effect.die })
    )

  const update = (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch, manager: KeyManager) =>
    Effect.gen(function* () {
      const parsed = parseApiKeyPatch(yield* storableBody(body), known)
      if (Result.isFailure(parsed)) return yield* parsed.failure
      if (!isApiKeyId(id)) return yield* new NotFound({ resource: "api_key", id })
      yield* granted(manager, parsed.success.scopes)
      return yield* answer(
        yield* handleCommand(deps, apiKeyAggregate, {
          ctx,
          streamId: id,
          ifMatch,
          prepare: othersManage(ctx, id, manager),
          command: ({ at, prepared }) =>
            Effect.succeed({ type: "UpdateApiKey" as const, id, at, ...parsed.success, guard: { othersManage: prepared } }),
          also: announced
        })
      )
    })

  const remove = (ctx: RequestContext, id: string, ifMatch: IfMatch, manager: KeyManager) =>
    isApiKeyId(id)
      ? Effect.asVoid(
          handleCommand(deps, apiKeyAggregate, {
            ctx,
            streamId: id,
            ifMatch,
            prepare: othersManage(ctx, id, manager),
            command: ({ at, prepared }) => Effect.succeed({ type: "RevokeApiKey" as const, id, at, guard: { othersManage: prepared } }),
            also: announced
          })
        )
      : Effect.fail(new NotFound({ resource: "api_key", id }))

  const recordUses = (uses: ReadonlyArray<KeyUse>) =>
    Effect.gen(function* () {
      const latest = new Map<string, string>()
      for (const { at, keyId } of uses) {
        const seen = latest.get(keyId)
        if (isApiKeyId(keyId) && (seen === undefined || at > seen)) latest.set(keyId, at)
      }
      const kept = yield* lastUses([...latest.keys()])
      const due = [...latest].filter(([keyId, at]) => {
        const before = kept.get(keyId)
        return before === undefined || Date.parse(at) - Date.parse(before) >= KEY_USE_EVERY_MILLIS
      })
      if (due.length === 0) return
      yield* deps.storage
        .commit({
          streams: [],
          documents: due.map(([keyId, at]) => ({
            _tag: "Upsert" as const,
            collection: "api_key_use" as const,
            workspaceId: SYSTEM_WORKSPACE,
            id: keyId,
            version: 1,
            deletedAt: null,
            uniqueKey: null,
            searchWords: [],
            data: { id: keyId, last_used_at: at }
          }))
        })
        .pipe(
          // Documents only, no streams and no unique key: neither conflict can happen, and no projection runs.
          Effect.catchTags({ VersionConflict: Effect.die, UniqueViolation: Effect.die, ProjectionFailed: Effect.die })
        )
    })

  return { create, revoke, list, authenticate, listFor, get, createFor, update, delete: remove, recordUses }
}
