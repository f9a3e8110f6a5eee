import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { DomainError } from "../errors.js"
import { Conflict, NotFound } from "../errors.js"
import type { WebhookCommand } from "./commands.js"
import type { WebhookChanges, WebhookEvent } from "./events.js"
import type { WebhookPatch } from "./input.js"
import { standardSecretKey } from "./secrets.js"

export interface WebhookSettings {
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly secret: string | null
  readonly secretStandard: boolean
}

export type WebhookState =
  | { readonly status: "absent" }
  | {
      readonly status: "active" | "failed"
      readonly settings: WebhookSettings
      /** The running recovery job's id. */
      readonly recovering: string | null
    }
  | { readonly status: "deleted" }

type Decision = Result.Result<ReadonlyArray<WebhookEvent>, DomainError>

const notFound = (id: string): Decision => Result.fail(new NotFound({ resource: "webhook", id }))

const recoveryRefused = (message: string, path: string): Decision => Result.fail(new Conflict({ message, details: [{ path, message }] }))

// A subscription is a set: reordering the names changes nothing.
const sameEvents = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((name) => b.includes(name))

// Every secret accepted now in the whsec_ form is read so (input refuses one that does not decode).
const secretChanges = (secret: string | null): { readonly secret: string | null; readonly secret_standard?: boolean } =>
  secret !== null && standardSecretKey(secret) !== null ? { secret, secret_standard: true } : { secret }

const plusSeconds = (at: string, seconds: number): string => new Date(Date.parse(at) + seconds * 1000).toISOString()

/** A new secret, and the one it replaces kept for the overlap (counted from the command's time, so a replay decides the same). */
const secretRotation = (current: WebhookSettings, secret: string | null, overlap: number | undefined, at: string): WebhookChanges => ({
  ...secretChanges(secret),
  ...(current.secret !== null && overlap !== undefined && overlap > 0
    ? {
        previous_secret: {
          secret: current.secret,
          ...(current.secretStandard ? { secret_standard: true } : {}),
          expires_at: plusSeconds(at, overlap)
        }
      }
    : {})
})

const changesOf = (current: WebhookSettings, patch: WebhookPatch, at: string): WebhookChanges => ({
  ...(patch.url !== undefined && patch.url !== current.url ? { url: patch.url } : {}),
  ...(patch.events !== undefined && !sameEvents(patch.events, current.events) ? { events: patch.events } : {}),
  ...(patch.secret !== undefined && patch.secret !== current.secret
    ? secretRotation(current, patch.secret, patch.previous_secret_expires_in, at)
    : {})
})

// Deliveries to a failed webhook are cancelled unsent, so recovering into one would schedule for nothing.
const FAILED = "the webhook is failed: reactivate it, with recover_since to recover in the same request"
const running = (jobId: string) => `recovery ${jobId} is still running for this webhook`

const decide = (command: WebhookCommand, state: WebhookState): Decision => {
  const { at, id } = command
  if (command.type === "CreateWebhook") {
    // Ids are fresh from the engine; a clash means a bug or a replayed command, never a user error.
    return state.status === "absent"
      ? Result.succeed([
          {
            type: "webhook.created",
            data: { id, url: command.url, events: command.events, ...secretChanges(command.secret), at }
          }
        ])
      : Result.fail(new Conflict({ message: `webhook ${id} already exists`, details: [{ path: "id", message: "already exists", id }] }))
  }
  if (state.status === "absent" || state.status === "deleted") return notFound(id)
  switch (command.type) {
    case "UpdateWebhook": {
      const { recover_since, status } = command.fields
      const changed = changesOf(state.settings, command.fields, at)
      const events: Array<WebhookEvent> = []
      if (Object.keys(changed).length > 0) events.push({ type: "webhook.updated", data: { changed, at } })
      const reactivated = status === "active" && state.status === "failed"
      if (reactivated) events.push({ type: "webhook.reactivated", data: { at } })
      if (recover_since !== undefined) {
        if (state.status === "failed" && !reactivated) return recoveryRefused(FAILED, "recover_since")
        if (state.recovering !== null) return recoveryRefused(running(state.recovering), "recover_since")
        if (command.recoveryId === undefined) throw new Error("UpdateWebhook with recover_since needs a recoveryId")
        events.push({ type: "webhook.recovery_started", data: { job_id: command.recoveryId, since: recover_since, at } })
      }
      return Result.succeed(events)
    }
    case "StartWebhookRecovery":
      if (state.status === "failed") return recoveryRefused(FAILED, "status")
      if (state.recovering !== null) return recoveryRefused(running(state.recovering), "id")
      return Result.succeed([{ type: "webhook.recovery_started", data: { job_id: command.recoveryId, since: command.since, at } }])
    case "EndWebhookRecovery":
      return Result.succeed(
        state.recovering === command.recoveryId ? [{ type: "webhook.recovery_ended", data: { job_id: command.recoveryId, at } }] : []
      )
    case "MarkWebhookFailed":
      // Several deliveries may fail at once; only the first turns the webhook failed.
      return Result.succeed(state.status === "active" ? [{ type: "webhook.failed", data: { reason: command.reason, at } }] : [])
    case "DeleteWebhook":
      return Result.succeed([{ type: "webhook.deleted", data: { at } }])
  }
}

const settingsAfter = (settings: WebhookSettings, { events, secret, secret_standard, url }: WebhookChanges): WebhookSettings => ({
  url: url ?? settings.url,
  events: events ?? settings.events,
  ...(secret === undefined
    ? { secret: settings.secret, secretStandard: settings.secretStandard }
    : { secret, secretStandard: secret_standard === true })
})

const evolve = (state: WebhookState, event: WebhookEvent): WebhookState => {
  switch (event.type) {
    case "webhook.created": {
      const { events, secret, secret_standard, url } = event.data
      return { status: "active", settings: { url, events, secret, secretStandard: secret_standard === true }, recovering: null }
    }
    case "webhook.updated":
      return state.status === "active" || state.status === "failed"
        ? { ...state, settings: settingsAfter(state.settings, event.data.changed) }
        : state
    case "webhook.reactivated":
      return state.status === "failed" ? { ...state, status: "active" } : state
    case "webhook.failed":
      return state.status === "active" ? { ...state, status: "failed" } : state
    case "webhook.recovery_started":
      return state.status === "active" || state.status === "failed" ? { ...state, recovering: event.data.job_id } : state
    case "webhook.recovery_ended":
      return (state.status === "active" || state.status === "failed") && state.recovering === event.data.job_id
        ? { ...state, recovering: null }
        : state
    case "webhook.deleted":
      return { status: "deleted" }
  }
}

export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = {
  initialState: { status: "absent" },
  evolve,
  decide
}
