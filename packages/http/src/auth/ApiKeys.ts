import {
  type ApiKeyOwner,
  type ApiKeyScopes,
  apiKeyIdOf,
  Engine,
  isScope,
  isWorkspaceId,
  Storage,
  type StorageService,
  type StorageUnavailable
} from "@dealstream/core"
import { hash, timingSafeEqual } from "node:crypto"
import { Cause, Context, Duration, Effect, Layer, Option, Stream } from "effect"
import * as KeyUses from "./keyUses.js"
import * as StoredKeyCache from "./storedKeyCache.js"

/** A key given to the host itself (DEALSTREAM_API_KEYS, or the dev key). */
export interface ApiKey {
  readonly workspaceId: string
  readonly key: string
  /** What it may do (auth/scopes.ts); everything when absent. */
  readonly scopes?: ApiKeyScopes
}

/**
 * Who a valid key speaks for. `keyId` names the key in logs, events, history entries and rate limits
 * without revealing it. A stored key may have expired (`expiresAt`): Authentication refuses it so.
 */
export interface KeyOwner extends ApiKeyOwner {
  /** One of the host's own keys (DEALSTREAM_API_KEYS, the dev key), not a stored one. */
  readonly configured: boolean
}

export interface ApiKeysService {
  /**
   * The owner of a presented key: one of the host's own keys, else a key stored with `dealstream keys
   * create` or `POST /v1/api-keys` and not revoked. Fails only when the stored keys cannot be read
   * (503, never 401).
   */
  readonly authenticate: (presented: string) => Effect.Effect<Option.Option<KeyOwner>, StorageUnavailable>
  /**
   * The owner of a presented key when this host knows it at `now` without asking storage (one of
   * its own keys, or a stored key it remembers); undefined when only `authenticate` can tell.
   * `connection` (the request's socket, when there is one) lets the key its last request presented
   * be recognised without hashing it again.
   */
  readonly knownAt: (presented: string, now: number, connection?: object) => KeyOwner | undefined
  /**
   * Forgets what this host remembers of a stored key, after changing or revoking it through this
   * host: here the change applies at once. Other hosts drop it when they hear of the change
   * (`followKeyChanges`), and within the cache's 5 s if they do not.
   */
  readonly forget: (keyId: string) => Effect.Effect<void>
  /** Notes that a stored key was used at `now` (its `last_used_at`), written in the background (keyUses.ts). */
  readonly usedAt: (owner: KeyOwner, now: number) => void
}

export class ApiKeys extends Context.Service<ApiKeys, ApiKeysService>()("@dealstream/http/ApiKeys") {}

/**
 * Whether `presented` is `known`, in a time that depends on `presented` alone: a proxy may send many
 * clients' requests over one connection, so the key it remembers may be another client's, whose
 * length or first characters must not show in how long a wrong guess takes.
 */
const sameText = (presented: string, known: string): boolean => {
  let differ = presented.length ^ known.length
  for (let i = 0; i < presented.length; i++) differ |= presented.charCodeAt(i) ^ (known.charCodeAt(i) | 0)
  return differ === 0
}

// The one-shot crypto.hash: a third of createHash().update().digest()'s cost, which ran per request.
const sha256 = (text: string): Buffer => hash("sha256", text, "buffer")

/**
 * The host's own keys are compared as SHA-256 digests with timingSafeEqual, against every key without
 * stopping at a match, so neither a key's length nor its position leaks through timing. Stored keys
 * are looked up by digest (a primary key in PostgreSQL, a Map in the cache): what such a lookup's
 * timing could leak is how much of the digest of the attacker's own guess matches a stored digest,
 * which brings no key closer, as finding a key from its digest means inverting SHA-256.
 */
export const make = (
  keys: ReadonlyArray<ApiKey>,
  lookup: (keySha256: string) => Effect.Effect<ApiKeyOwner | null, StorageUnavailable>,
  cache: StoredKeyCache.StoredKeyCache<KeyOwner> = StoredKeyCache.make(),
  uses: Pick<KeyUses.KeyUses, "noteAt"> = { noteAt: () => {} }
): ApiKeysService => {
  const entries = keys.map(({ key, scopes, workspaceId }, index) => {
    // Embedders pass keys without going through `parse`; a workspace outside the API's syntax (the
    // reserved one that holds the stored keys, say) must not be reachable through any key.
    if (!isWorkspaceId(workspaceId)) throw new Error(`API key ${index + 1} names an invalid workspace id ${JSON.stringify(workspaceId)}`)
    const digest = sha256(key)
    const owner: KeyOwner = {
      workspaceId,
      keyId: apiKeyIdOf(digest.toString("hex")),
      scopes: scopes ?? "*",
      expiresAt: null,
      configured: true
    }
    return { digest, owner }
  })
  const configuredOwner = (digest: Buffer): KeyOwner | undefined => {
    let found: KeyOwner | undefined
    for (const entry of entries) {
      if (timingSafeEqual(entry.digest, digest)) found = entry.owner
    }
    return found
  }
  // Per connection, the key its last known request presented, and who that is: clients send the same
  // key on every request of a connection, and SHA-256 was a sixth of a memory host's GET (bench/
  // ANALYSIS.md, issue 32). A stored key's owner is asked of the cache each time, so a revocation or
  // the cache's time limit applies as before.
  const lastKnown = new WeakMap<object, { readonly presented: string; readonly hex: string; readonly configured: KeyOwner | undefined }>()
  return {
    knownAt: (presented, now, connection) => {
      const last = connection === undefined ? undefined : lastKnown.get(connection)
      if (last !== undefined && sameText(presented, last.presented)) return last.configured ?? cache.peek(last.hex, now)
      const digest = sha256(presented)
      const hex = digest.toString("hex")
      const configured = configuredOwner(digest)
      const owner = configured ?? cache.peek(hex, now)
      if (connection !== undefined && owner !== undefined) lastKnown.set(connection, { presented, hex, configured })
      return owner
    },
    authenticate: (presented) => {
      const digest = sha256(presented)
      const found = configuredOwner(digest)
      if (found !== undefined) return Effect.succeed(Option.some(found))
      const hex = digest.toString("hex")
      const stored = Effect.map(lookup(hex), (owner): KeyOwner | null => (owner === null ? null : { ...owner, configured: false }))
      return Effect.map(cache.lookup(hex, stored), Option.fromNullishOr)
    },
    forget: (keyId) => Effect.sync(() => cache.forget((owner) => owner.keyId === keyId)),
    usedAt: (owner, now) => {
      if (!owner.configured) uses.noteAt(owner.keyId, now)
    }
  }
}

/**
 * While the scope lasts, drops the remembered keys of a workspace whose settings changed, on every
 * host: every change to a stored key bumps its workspace's settings version, and the storage tells
 * every host of that (PostgreSQL: NOTIFY). Settings change rarely, so a workspace's keys are looked
 * up again after its custom fields or pipelines change too, and that costs a read each. Whatever
 * was said while no host was listening is unknown: everything is dropped then, and again when the
 * signals fail, before listening starts again a second later. The cache's time limit still holds
 * should a signal be lost.
 */
export const followKeyChanges = (storage: StorageService, cache: StoredKeyCache.StoredKeyCache<KeyOwner>) =>
  Effect.forkScoped(
    Effect.forever(
      storage.settingsChanges.pipe(
        Stream.runForEach((change) =>
          Effect.sync(() =>
            change._tag === "Changed" ? cache.forget((owner) => owner.workspaceId === change.workspaceId) : cache.forget(() => true)
          )
        ),
        Effect.catchCause((cause) => (Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.void)),
        Effect.andThen(Effect.sync(() => cache.forget(() => true))),
        Effect.andThen(Effect.sleep(Duration.seconds(1)))
      )
    )
  )

/**
 * The host's own keys, and the keys stored in the engine's storage (cached for at most 5 s, and
 * dropped as soon as the storage says they changed), with their uses written in the background
 * while the layer lasts.
 */
export const layer = (
  keys: ReadonlyArray<ApiKey>,
  cache: StoredKeyCache.StoredKeyCacheOptions = StoredKeyCache.defaults,
  uses: KeyUses.KeyUsesOptions = KeyUses.defaults
): Layer.Layer<ApiKeys, never, Engine | Storage> =>
  Layer.effect(
    ApiKeys,
    Effect.gen(function* () {
      const engine = yield* Engine
      const recorder = yield* KeyUses.make(engine.apiKeys.recordUses, uses)
      const remembered = StoredKeyCache.make<KeyOwner>(cache)
      yield* followKeyChanges(yield* Storage, remembered)
      return make(keys, engine.apiKeys.authenticate, remembered, recorder)
    })
  )

/**
 * `DEALSTREAM_API_KEYS="ws_a:key_a,ws_b:key_b@contacts:read+deals:read"`: a key may be followed by
 * `@` and its scopes joined by `+` (everything without); throws a one-line message for the CLI on a
 * bad value.
 */
export const parse = (text: string): ReadonlyArray<ApiKey> => {
  const keys = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part, index) => {
      const colon = part.indexOf(":")
      const workspaceId = colon < 0 ? "" : part.slice(0, colon).trim()
      const rest = colon < 0 ? "" : part.slice(colon + 1).trim()
      const at = rest.indexOf("@")
      const key = (at < 0 ? rest : rest.slice(0, at)).trim()
      if (!isWorkspaceId(workspaceId) || key === "") {
        throw new Error(`API key entry ${index + 1} must look like workspace_id:key (workspace ids: letters, digits, _ and -)`)
      }
      if (at < 0) return { workspaceId, key }
      const scopes = rest
        .slice(at + 1)
        .split("+")
        .map((scope) => scope.trim())
      const bad = scopes.find((scope) => !isScope(scope))
      if (bad !== undefined) {
        throw new Error(`API key entry ${index + 1}: ${JSON.stringify(bad)} is not a scope (such as contacts:read; several joined by +)`)
      }
      return { workspaceId, key, scopes }
    })
  if (keys.length === 0) throw new Error("no API keys given (expected workspace_id:key,…)")
  if (new Set(keys.map(({ key }) => key)).size !== keys.length) throw new Error("the same API key is listed twice")
  return keys
}
