import { Result } from "effect"
import { type ErrorDetail, ValidationError } from "../errors.js"

/**
 * The workspace API keys are recorded under. Workspace ids are `[A-Za-z0-9_-]{1,64}`, so no API key
 * (whose workspace must be one of those) and no client can ever name this one: the keys' streams and
 * documents are out of every API request's reach.
 */
export const SYSTEM_WORKSPACE = "$system"

const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,64}$/
const SHA256_HEX = /^[0-9a-f]{64}$/

/** A workspace id a key may be issued for (never SYSTEM_WORKSPACE). */
export const isWorkspaceId = (text: string): boolean => WORKSPACE_ID.test(text)

/** A SHA-256 digest as 64 lowercase hex digits. */
export const isKeySha256 = (text: string): boolean => SHA256_HEX.test(text)

/**
 * A key's public name, `key_` and the first 12 hex digits of its SHA-256: it names the key in logs,
 * event metadata, rate limits and the CLI without revealing anything that helps to guess it.
 */
export const apiKeyIdOf = (keySha256: string): string => `key_${keySha256.slice(0, 12)}`

/** Whether `text` is shaped like a key id (`apiKeyIdOf` of some digest). */
export const isApiKeyId = (text: string): boolean => /^key_[0-9a-f]{12}$/.test(text)

export interface ApiKeyCreate {
  readonly workspaceId: string
  /** The key itself never reaches the engine: only its digest does. */
  readonly keySha256: string
}

export const parseApiKeyCreate = (input: ApiKeyCreate): Result.Result<ApiKeyCreate, ValidationError> => {
  const details: Array<ErrorDetail> = []
  if (!isWorkspaceId(input.workspaceId)) {
    details.push({ path: "workspace_id", message: "must be 1 to 64 letters, digits, _ or -" })
  }
  if (!isKeySha256(input.keySha256)) details.push({ path: "key_sha256", message: "must be 64 lowercase hex digits" })
  return details.length === 0 ? Result.succeed(input) : Result.fail(ValidationError.of(details))
}
