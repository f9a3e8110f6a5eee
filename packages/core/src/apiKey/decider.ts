import { Result } from "effect"
import type { Decider } from "../decider.js"
import { Conflict, type DomainError, NotFound } from "../errors.js"
import type { ApiKeyCommand } from "./commands.js"
import type { ApiKeyEvent } from "./events.js"

export type ApiKeyState =
  | { readonly status: "absent" }
  | { readonly status: "active" | "revoked"; readonly workspaceId: string; readonly keySha256: string }

type Decision = Result.Result<ReadonlyArray<ApiKeyEvent>, DomainError>

const decide = (command: ApiKeyCommand, state: ApiKeyState): Decision => {
  const { at, id } = command
  switch (command.type) {
    case "CreateApiKey":
      // The id is the digest's prefix: a clash is another key sharing it (or the same key twice),
      // and the caller generates a new key.
      return state.status === "absent"
        ? Result.succeed([
            {
              type: "api_key.created",
              data: { id, workspace_id: command.workspaceId, key_sha256: command.keySha256, at }
            }
          ])
        : Result.fail(new Conflict({ message: `API key ${id} already exists`, details: [{ path: "id", message: "already exists", id }] }))
    case "RevokeApiKey":
      if (state.status === "absent") return Result.fail(new NotFound({ resource: "api_key", id }))
      return Result.succeed(state.status === "active" ? [{ type: "api_key.revoked", data: { at } }] : [])
  }
}

const evolve = (state: ApiKeyState, event: ApiKeyEvent): ApiKeyState => {
  switch (event.type) {
    case "api_key.created":
      return { status: "active", workspaceId: event.data.workspace_id, keySha256: event.data.key_sha256 }
    case "api_key.revoked":
      return state.status === "absent" ? state : { ...state, status: "revoked" }
  }
}

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  initialState: { status: "absent" },
  evolve,
  decide
}
