import { Result } from "effect"
import type { ErrorDetail, ValidationError } from "../errors.js"
import { timestamp } from "../field/checks.js"
import { answer, notAnObject } from "../field/recordBody.js"
import { isJsonObject } from "../json.js"
import type { ApiKeyScopes } from "./scopes.js"

/**
 * The workspace API keys' documents are stored under. Workspace ids are `[A-Za-z0-9_-]{1,64}`, so no
 * API key (whose workspace must be one of those) and no client can ever name this one: the keys'
 * documents (looked up by digest) and when each was last used are out of every API request's reach.
 * A key's events are recorded in its own workspace (its change feed shows them, without the
 * digest); keys made before that have their first event here (apiKeyAggregate.workspaceOf).
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
 * event metadata, history entries, rate limits, the CLI and the API without revealing anything that
 * helps to guess it.
 */
export const apiKeyIdOf = (keySha256: string): string => `key_${keySha256.slice(0, 12)}`

/** Whether `text` is shaped like a key id (`apiKeyIdOf` of some digest). */
export const isApiKeyId = (text: string): boolean => /^key_[0-9a-f]{12}$/.test(text)

export const API_KEY_NAME_MAX = 200

/** What a key is made with besides its digest: as a POST's body gives them, or the CLI's flags. */
export interface ApiKeyFields {
  /** null: no name (the CLI without --name). */
  readonly name: string | null
  readonly scopes: ApiKeyScopes
  /** Canonical ISO; null: the key never expires. */
  readonly expiresAt: string | null
}

export interface ApiKeyCreate extends Partial<ApiKeyFields> {
  readonly workspaceId: string
  /** The key itself never reaches the engine: only its digest does. */
  readonly keySha256: string
}

/** What a PATCH changes: only the fields given. */
export interface ApiKeyPatch {
  readonly name?: string
  readonly scopes?: ApiKeyScopes
  readonly expiresAt?: string | null
}

type Check<A> = (value: unknown, path: string, known: ReadonlyArray<string>) => Result.Result<A, ReadonlyArray<ErrorDetail>>

const at =
  (path: string) =>
  (message: string): ReadonlyArray<ErrorDetail> => [{ path, message }]

const name: Check<string> = (value, path) =>
  typeof value === "string" && value.trim() !== "" && value.length <= API_KEY_NAME_MAX
    ? Result.succeed(value)
    : Result.fail(at(path)(`must be a string of 1 to ${API_KEY_NAME_MAX} characters, not blank`))

/** `"*"`, or a non-empty list of scopes this engine knows; repeats are dropped, the first kept. */
const scopes: Check<ApiKeyScopes> = (value, path, known) => {
  if (value === "*") return Result.succeed("*")
  if (!Array.isArray(value)) return Result.fail(at(path)('must be "*" or an array of scopes such as "contacts:read"'))
  if (value.length === 0) return Result.fail(at(path)("must name at least one scope"))
  const details: Array<ErrorDetail> = []
  const kept: Array<string> = []
  for (const [i, item] of value.entries()) {
    if (item === "*") details.push({ path: `${path}[${i}]`, message: '"*" stands alone, not in a list' })
    else if (typeof item !== "string" || !known.includes(item)) details.push({ path: `${path}[${i}]`, message: "is not a known scope" })
    else if (!kept.includes(item)) kept.push(item)
  }
  return details.length > 0 ? Result.fail(details) : Result.succeed(kept)
}

/** An instant with its offset, kept in canonical UTC; null: never. Whether it lies ahead is the decider's to say. */
const expiresAt: Check<string | null> = (value, path) =>
  value === null ? Result.succeed(null) : Result.mapError(timestamp(value) as Result.Result<string, string>, at(path))

const READ_ONLY = ["id", "key", "last_used_at", "created_at", "revoked_at", "workspace_id"]

/** Every offending key is reported, the missing required ones first. */
const readBody = <Fields extends Record<string, unknown>>(
  body: unknown,
  checks: { readonly [K in keyof Fields]: Check<Fields[K]> },
  required: ReadonlyArray<keyof Fields & string>,
  known: ReadonlyArray<string>
): Result.Result<Partial<Fields>, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(notAnObject())
  const details: Array<ErrorDetail> = required
    .filter((key) => !Object.hasOwn(body, key))
    .map((key) => ({ path: key, message: "is required" }))
  const fields: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) {
    const check = Object.hasOwn(checks, key) ? (checks as Record<string, Check<unknown>>)[key] : undefined
    if (check === undefined) {
      details.push({ path: key, message: READ_ONLY.includes(key) ? "is read-only" : "is not a known field" })
      continue
    }
    Result.match(check(value, key, known), {
      onFailure: (problems) => details.push(...problems),
      onSuccess: (accepted) => {
        fields[key] = accepted
      }
    })
  }
  return answer(details, fields as Partial<Fields>)
}

interface BodyFields extends Record<string, unknown> {
  readonly name: string
  readonly scopes: ApiKeyScopes
  readonly expires_at: string | null
}

const bodyChecks = { name, scopes, expires_at: expiresAt }

/** `POST /v1/api-keys`: `{name, scopes, expires_at?}`; `known` is every scope the engine serves (knownScopes). */
export const parseApiKeyBody = (body: unknown, known: ReadonlyArray<string>): Result.Result<ApiKeyFields, ValidationError> =>
  Result.map(readBody<BodyFields>(body, bodyChecks, ["name", "scopes"], known), (fields) => ({
    name: fields.name!,
    scopes: fields.scopes!,
    expiresAt: fields.expires_at ?? null
  }))

/** `PATCH /v1/api-keys/:id`: any of `name`, `scopes` and `expires_at` (null: never expires). */
export const parseApiKeyPatch = (body: unknown, known: ReadonlyArray<string>): Result.Result<ApiKeyPatch, ValidationError> =>
  Result.map(readBody<BodyFields>(body, bodyChecks, [], known), (fields) => ({
    ...(fields.name === undefined ? {} : { name: fields.name }),
    ...(fields.scopes === undefined ? {} : { scopes: fields.scopes }),
    ...(fields.expires_at === undefined ? {} : { expiresAt: fields.expires_at })
  }))

/**
 * The operator's input (`dealstream keys create`): the workspace and digest, and what the flags
 * gave, checked as the API checks them. Without them a key has no name, `"*"`, and no expiry.
 */
export const parseApiKeyCreate = (
  input: ApiKeyCreate,
  known: ReadonlyArray<string>
): Result.Result<ApiKeyCreate & ApiKeyFields, ValidationError> => {
  const details: Array<ErrorDetail> = []
  if (!isWorkspaceId(input.workspaceId)) {
    details.push({ path: "workspace_id", message: "must be 1 to 64 letters, digits, _ or -" })
  }
  if (!isKeySha256(input.keySha256)) details.push({ path: "key_sha256", message: "must be 64 lowercase hex digits" })
  const fields = readBody<BodyFields>(
    {
      ...(input.name === undefined || input.name === null ? {} : { name: input.name }),
      ...(input.scopes === undefined ? {} : { scopes: input.scopes }),
      ...(input.expiresAt === undefined ? {} : { expires_at: input.expiresAt })
    },
    bodyChecks,
    [],
    known
  )
  if (Result.isFailure(fields)) details.push(...fields.failure.details)
  const given = Result.isSuccess(fields) ? fields.success : {}
  return answer(details, {
    workspaceId: input.workspaceId,
    keySha256: input.keySha256,
    name: given.name ?? null,
    scopes: given.scopes ?? "*",
    expiresAt: given.expires_at ?? null
  })
}
