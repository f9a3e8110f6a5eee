import { type ApiKeyScopes, apiKeyIdOf, Engine, type ErrorDetail, type JsonObject, scopesOf } from "@dealstream/core"
import { databaseTarget, EmbeddedPostgres } from "@dealstream/storage-pg"
import { Cause, Effect, Exit, Result } from "effect"
import { keySha256, newApiKey } from "../auth/newKey.js"
import { engineOn } from "../host/HostLive.js"
import { embeddedClusterDir, type StorageChoice, StorageInUse } from "../host/storage.js"

/** A `dealstream keys` command that failed, worded for one line. */
export class KeysFailed extends Error {}

/** Recorded as the actor of the keys' events. */
const ACTOR = "dealstream-cli"

/**
 * An embedded cluster that a running host has started is reached through that host's server: a
 * second server cannot start on it, and keys are meant to be created and revoked while hosts run.
 */
const reachable = (choice: StorageChoice): { readonly choice: StorageChoice; readonly description?: string } => {
  if (choice === "memory" || !("embedded" in choice)) return { choice }
  const cluster = embeddedClusterDir(choice.embedded)
  const running = EmbeddedPostgres.runningUrl(cluster)
  return running === null
    ? { choice }
    : { choice: { postgres: running }, description: `embedded PostgreSQL ${databaseTarget(running)} of a running host, data in ${cluster}` }
}

const run = async <A>(
  choice: StorageChoice,
  program: Effect.Effect<A, unknown, Engine | StorageInUse>
): Promise<A & { readonly storage: string }> => {
  const target = reachable(choice)
  const exit = await Effect.runPromiseExit(
    Effect.gen(function* () {
      const { description } = yield* StorageInUse
      return { ...(yield* program), storage: target.description ?? description }
    }).pipe(Effect.provide(engineOn(target.choice)))
  )
  if (Exit.isSuccess(exit)) return exit.value
  const failure = exit.cause.reasons.find(Cause.isFailReason)?.error ?? exit.cause.reasons.find(Cause.isDieReason)?.defect
  const message = failure instanceof Error ? failure.message : String(failure)
  throw new KeysFailed(message.split("\n")[0]!.trim())
}

export interface CreatedKey {
  /** The key itself: shown once, stored nowhere. */
  readonly key: string
  readonly keyId: string
  readonly workspaceId: string
  /** The key's document as stored: its name, scopes and expiry. */
  readonly document: JsonObject
}

/** `keys create`'s flags beyond the workspace: without them, no name, `*` and no expiry. */
export interface KeyOptions {
  readonly name?: string
  readonly scopes?: ApiKeyScopes
  /** Canonical ISO. */
  readonly expiresAt?: string
}

/** What failed in the engine's checks of the flags, worded for the flag that gave it (`--scopes "deals:delete" is not a known scope`). */
const flagProblem = (detail: ErrorDetail | undefined, options: KeyOptions): string | null => {
  if (detail === undefined) return null
  const [, field, index] = /^(name|scopes|expires_at)(?:\[(\d+)\])?$/.exec(detail.path) ?? []
  if (field === undefined) return null
  const flag = field === "expires_at" ? "--expires" : `--${field}`
  const scope = index !== undefined && Array.isArray(options.scopes) ? options.scopes[Number(index)] : undefined
  return scope === undefined ? `${flag} ${detail.message}` : `${flag} ${JSON.stringify(scope)} ${detail.message}`
}

/**
 * Makes a key for `workspaceId` and stores its SHA-256. A key id is the digest's first 12 hex
 * digits; in the unlikely event that a stored key already has it, another key is made.
 */
export const createKey = (choice: StorageChoice, workspaceId: string, options: KeyOptions = {}) =>
  run(
    choice,
    Effect.gen(function* () {
      const engine = yield* Engine
      for (let attempt = 1; ; attempt++) {
        const key = newApiKey()
        const created = yield* Effect.result(
          engine.apiKeys
            .create({ workspaceId, keySha256: keySha256(key), actor: ACTOR, ...options })
            .pipe(
              Effect.catchTag("ValidationError", (error) =>
                Effect.fail(new KeysFailed(flagProblem(error.details[0], options) ?? error.message))
              )
            )
        )
        if (Result.isSuccess(created)) {
          return { key, keyId: apiKeyIdOf(keySha256(key)), workspaceId, document: created.success.data } satisfies CreatedKey
        }
        if (!("_tag" in created.failure) || created.failure._tag !== "Conflict" || attempt === 3) return yield* Effect.fail(created.failure)
      }
    })
  )

export interface RevokedKey {
  readonly keyId: string
  readonly workspaceId: string
  readonly revokedAt: string
  /** It had been revoked before (at revokedAt); nothing changed. */
  readonly already: boolean
}

export const revokeKey = (choice: StorageChoice, keyId: string) =>
  run(
    choice,
    Effect.gen(function* () {
      const engine = yield* Engine
      const before = (yield* engine.apiKeys.list(null)).data.find((key) => key["id"] === keyId)
      const revoked = yield* engine.apiKeys
        .revoke({ keyId, actor: ACTOR })
        .pipe(Effect.catchTag("NotFound", () => Effect.fail(new KeysFailed(`no API key ${keyId} (see dealstream keys list)`))))
      return {
        keyId,
        workspaceId: String(revoked.data["workspace_id"]),
        revokedAt: String(revoked.data["revoked_at"]),
        already: before !== undefined && before["revoked_at"] !== null
      } satisfies RevokedKey
    })
  )

export const listKeys = (choice: StorageChoice, workspaceId: string | null) =>
  run(
    choice,
    Effect.map(
      Effect.flatMap(Engine, (engine) => engine.apiKeys.list(workspaceId)),
      (page) => ({ keys: page.data })
    )
  )

/** A key's scopes in one word: `*`, or the scopes joined by commas (as --scopes takes them). */
export const scopesText = (scopes: ApiKeyScopes): string => (scopes === "*" ? "*" : scopes.join(","))

/**
 * Keys as a table: id, workspace, created, revoked, expires, scopes, name (never the key, which is
 * stored nowhere, nor its digest). The name comes last, as the one column that may hold spaces.
 */
export const keyTable = (keys: ReadonlyArray<JsonObject>): string => {
  const dash = (value: unknown) => (typeof value === "string" ? value : "-")
  const rows = [
    ["KEY ID", "WORKSPACE", "CREATED", "REVOKED", "EXPIRES", "SCOPES", "NAME"],
    ...keys.map((key) => [
      String(key["id"]),
      String(key["workspace_id"]),
      String(key["created_at"]),
      dash(key["revoked_at"]),
      dash(key["expires_at"]),
      scopesText(scopesOf(key["scopes"])),
      dash(key["name"])
    ])
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "))
    .join("\n")
}
