import { Result } from "effect"
import type { Decider } from "../decider.js"
import { Conflict, type DomainError, NotFound, ValidationError } from "../errors.js"
import type { ApiKeyCommand, ManagerGuard } from "./commands.js"
import type { ApiKeyChanges, ApiKeyEvent } from "./events.js"
import { type ApiKeyScopes, grants, KEYS_MANAGE } from "./scopes.js"

export type ApiKeyState =
  | { readonly status: "absent" }
  | {
      readonly status: "active" | "revoked"
      readonly workspaceId: string
      readonly keySha256: string
      readonly name: string | null
      readonly scopes: ApiKeyScopes
      readonly expiresAt: string | null
    }

type Live = Extract<ApiKeyState, { readonly status: "active" | "revoked" }>

type Decision = Result.Result<ReadonlyArray<ApiKeyEvent>, DomainError>

/** Whether a key has expired at `at` (both canonical ISO, which compare as text). */
export const isExpired = (expiresAt: string | null, at: string): boolean => expiresAt !== null && expiresAt <= at

/** Whether the key may manage the workspace's keys at `at`: not revoked, not expired, with `keys:manage`. */
export const managesKeys = (state: ApiKeyState, at: string): boolean =>
  state.status === "active" && !isExpired(state.expiresAt, at) && grants(state.scopes, KEYS_MANAGE)

// A scope list is a set: reordering it changes nothing.
const sameScopes = (a: ApiKeyScopes, b: ApiKeyScopes): boolean =>
  a === "*" || b === "*" ? a === b : a.length === b.length && a.every((scope) => b.includes(scope))

/** An expiry must lie ahead of the command: a key made or changed to be expired already is a mistake. */
const expiryRefused = (expiresAt: string | null, at: string): ValidationError | null =>
  expiresAt !== null && expiresAt <= at ? ValidationError.at("expires_at", "must be later than now") : null

/**
 * The workspace's last key that may manage keys for good keeps that power: with no other such key
 * (`guard.othersManage` false), a key that manages keys now may be neither revoked, nor lose
 * `keys:manage`, nor be given an expiry or an earlier one. Otherwise a workspace could lock
 * itself out of managing its keys over the API (the operator's CLI could still).
 */
const lastManagerRefusal = (
  id: string,
  state: Live,
  at: string,
  guard: ManagerGuard | undefined,
  change: { readonly path: string; readonly what: string } | null
): Conflict | null => {
  if (change === null || guard === undefined || guard.othersManage || !managesKeys(state, at)) return null
  const message =
    `API key ${id} is the workspace's last key that may manage keys (${KEYS_MANAGE}) and does not expire: ` +
    `it cannot ${change.what}; give another key ${KEYS_MANAGE} without an expiry first`
  return new Conflict({ message, details: [{ path: change.path, message: `cannot ${change.what}`, id }] })
}

/** What a patch takes away of the key's power to manage keys, if anything. */
const takenAway = (state: Live, changed: ApiKeyChanges): { readonly path: string; readonly what: string } | null => {
  if (changed.scopes !== undefined && !grants(changed.scopes, KEYS_MANAGE)) return { path: "scopes", what: `lose ${KEYS_MANAGE}` }
  const expiresAt = changed.expires_at
  if (expiresAt !== undefined && expiresAt !== null && (state.expiresAt === null || expiresAt < state.expiresAt)) {
    return { path: "expires_at", what: state.expiresAt === null ? "be given an expiry" : "expire sooner" }
  }
  return null
}

const decide = (command: ApiKeyCommand, state: ApiKeyState): Decision => {
  const { at, id } = command
  switch (command.type) {
    case "CreateApiKey": {
      // The id is the digest's prefix: a clash is another key sharing it (or the same key twice),
      // and the caller generates a new key.
      if (state.status !== "absent") {
        return Result.fail(
          new Conflict({ message: `API key ${id} already exists`, details: [{ path: "id", message: "already exists", id }] })
        )
      }
      const refused = expiryRefused(command.expiresAt, at)
      if (refused !== null) return Result.fail(refused)
      return Result.succeed([
        {
          type: "api_key.created",
          data: {
            id,
            workspace_id: command.workspaceId,
            key_sha256: command.keySha256,
            name: command.name,
            scopes: command.scopes,
            expires_at: command.expiresAt,
            at
          }
        }
      ])
    }
    case "UpdateApiKey": {
      if (state.status === "absent") return Result.fail(new NotFound({ resource: "api_key", id }))
      if (state.status === "revoked") {
        return Result.fail(
          new Conflict({ message: `API key ${id} is revoked: it cannot be changed`, details: [{ path: "id", message: "is revoked", id }] })
        )
      }
      if (isExpired(state.expiresAt, at)) {
        const message = `API key ${id} expired at ${state.expiresAt}: it cannot be changed; make another`
        return Result.fail(new Conflict({ message, details: [{ path: "id", message: "has expired", id }] }))
      }
      const changed: ApiKeyChanges = {
        ...(command.name !== undefined && command.name !== state.name ? { name: command.name } : {}),
        ...(command.scopes !== undefined && !sameScopes(command.scopes, state.scopes) ? { scopes: command.scopes } : {}),
        ...(command.expiresAt !== undefined && command.expiresAt !== state.expiresAt ? { expires_at: command.expiresAt } : {})
      }
      if (Object.keys(changed).length === 0) return Result.succeed([])
      const refused =
        expiryRefused(changed.expires_at ?? null, at) ?? lastManagerRefusal(id, state, at, command.guard, takenAway(state, changed))
      return refused === null ? Result.succeed([{ type: "api_key.updated", data: { changed, at } }]) : Result.fail(refused)
    }
    case "RevokeApiKey": {
      if (state.status === "absent") return Result.fail(new NotFound({ resource: "api_key", id }))
      if (state.status === "revoked") return Result.succeed([])
      const refused = lastManagerRefusal(id, state, at, command.guard, { path: "id", what: "be revoked" })
      return refused === null ? Result.succeed([{ type: "api_key.revoked", data: { at } }]) : Result.fail(refused)
    }
  }
}

const evolve = (state: ApiKeyState, event: ApiKeyEvent): ApiKeyState => {
  switch (event.type) {
    case "api_key.created": {
      const { expires_at, key_sha256, name, scopes, workspace_id } = event.data
      return { status: "active", workspaceId: workspace_id, keySha256: key_sha256, name, scopes, expiresAt: expires_at }
    }
    case "api_key.updated": {
      if (state.status === "absent") return state
      const { expires_at, name, scopes } = event.data.changed
      return {
        ...state,
        ...(name === undefined ? {} : { name }),
        ...(scopes === undefined ? {} : { scopes }),
        ...(expires_at === undefined ? {} : { expiresAt: expires_at })
      }
    }
    case "api_key.revoked":
      return state.status === "absent" ? state : { ...state, status: "revoked" }
  }
}

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  initialState: { status: "absent" },
  evolve,
  decide
}
