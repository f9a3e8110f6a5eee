import { createHash, timingSafeEqual } from "node:crypto"
import { Context, Layer, Option } from "effect"

export interface ApiKey {
  readonly workspaceId: string
  readonly key: string
}

/** Who a valid key speaks for. `keyId` names the key in logs, events and rate limits without revealing it. */
export interface KeyOwner {
  readonly workspaceId: string
  readonly keyId: string
}

export interface ApiKeysService {
  readonly authenticate: (presented: string) => Option.Option<KeyOwner>
}

export class ApiKeys extends Context.Tag("@dealstream/http/ApiKeys")<ApiKeys, ApiKeysService>() {}

const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest()

/**
 * Keys are compared as SHA-256 digests with timingSafeEqual, against every configured key
 * without stopping at a match, so neither a key's length nor its position leaks through timing.
 */
export const make = (keys: ReadonlyArray<ApiKey>): ApiKeysService => {
  const entries = keys.map(({ key, workspaceId }) => {
    const digest = sha256(key)
    return { digest, owner: { workspaceId, keyId: `key_${digest.toString("hex").slice(0, 12)}` } }
  })
  return {
    authenticate: (presented) => {
      const digest = sha256(presented)
      let found: KeyOwner | undefined
      for (const entry of entries) {
        if (timingSafeEqual(entry.digest, digest)) found = entry.owner
      }
      return Option.fromNullable(found)
    }
  }
}

export const layer = (keys: ReadonlyArray<ApiKey>): Layer.Layer<ApiKeys> => Layer.succeed(ApiKeys, make(keys))

const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,64}$/

/** `DEALSTREAM_API_KEYS="ws_a:key_a,ws_b:key_b"`; throws a one-line message for the CLI on a bad value. */
export const parse = (text: string): ReadonlyArray<ApiKey> => {
  const keys = text.split(",").map((part) => part.trim()).filter((part) => part !== "").map((part, index) => {
    const colon = part.indexOf(":")
    const workspaceId = colon < 0 ? "" : part.slice(0, colon).trim()
    const key = colon < 0 ? "" : part.slice(colon + 1).trim()
    if (!WORKSPACE_ID.test(workspaceId) || key === "") {
      throw new Error(`API key entry ${index + 1} must look like workspace_id:key (workspace ids: letters, digits, _ and -)`)
    }
    return { workspaceId, key }
  })
  if (keys.length === 0) throw new Error("no API keys given (expected workspace_id:key,…)")
  if (new Set(keys.map(({ key }) => key)).size !== keys.length) throw new Error("the same API key is listed twice")
  return keys
}
