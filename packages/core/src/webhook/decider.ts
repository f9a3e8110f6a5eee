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
  | { readonly status: "active" | "failed"; readonly settings: WebhookSettings }
  | { readonly status: "deleted" }

type Decision = Result.Result<ReadonlyArray<WebhookEvent>, DomainError>

const notFound = (id: string): Decision => Result.fail(new NotFound({ resource: "webhook", id }))

// A subscription is a set: reordering the names changes nothing.
const sameEvents = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((name) => b.includes(name))

// Every secret accepted now in the whsec_ form is read so (input refuses one that does not decode).
const secretChanges = (secret: string | null): { readonly secret: string | null; readonly secret_standard?: boolean } =>
  secret !== null && standardSecretKey(secret) !== null ? { secret, secret_standard: true } : { secret }

const plusSeconds = (at: string, seconds: number): string => new Date(Date.parse(at) + seconds * 1000).toISOString()

const changesOf = (current: WebhookSettings, patch: WebhookPatch, at: string): WebhookChanges => ({
  ...(patch.url !== undefined && patch.url !== current.url ? { url: patch.url } : {}),
  ...(patch.events !== undefined && !sameEvents(patch.events, current.events) ? { events: patch.events } : {}),
  ...(patch.secret !== undefined && patch.secret !== current.secret ? secretChanges(patch.secret) : {}),
  // The overlap counts from the command's time, so the decision is the same wherever it is replayed.
  ...(patch.secret !== undefined && patch.secret !== current.secret && current.secret !== null &&
      patch.previous_secret_expires_in !== undefined && patch.previous_secret_expires_in > 0
    ? {
      previous_secret: {
        secret: current.secret,
        ...(current.secretStandard ? { secret_standard: true } : {}),
        expires_at: plusSeconds(at, patch.previous_secret_expires_in)
      }
    }
    : {})
})

const decide = (command: WebhookCommand, state: WebhookState): Decision => {
  const { at, id } = command
  if (command.type === "CreateWebhook") {
    // Ids are fresh from the engine; a clash means a bug or a replayed command, never a user error.
    return state.status === "absent"
      ? Result.succeed([{
        type: "webhook.created",
        data: { id, url: command.url, events: command.events, ...secretChanges(command.secret), at }
      }])
      : Result.fail(
        new Conflict({ message: `webhook ${id} already exists`, details: [{ path: "id", message: "already exists", id }] })
      )
  }
  if (state.status === "absent" || state.status === "deleted") return notFound(id)
  switch (command.type) {
    case "UpdateWebhook": {
      const changed = changesOf(state.settings, command.fields, at)
      const events: Array<WebhookEvent> = []
      if (Object.keys(changed).length > 0) events.push({ type: "webhook.updated", data: { changed, at } })
      if (command.fields.status === "active" && state.status === "failed") {
        events.push({ type: "webhook.reactivated", data: { at } })
      }
      return Result.succeed(events)
    }
    case "MarkWebhookFailed":
      // Several deliveries may fail at once; only the first turns the webhook failed.
      return Result.succeed(
        state.status === "active" ? [{ type: "webhook.failed", data: { reason: command.reason, at } }] : []
      )
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
      return { status: "active", settings: { url, events, secret, secretStandard: secret_standard === true } }
    }
    case "webhook.updated":
      return state.status === "active" || state.status === "failed"
        ? { status: state.status, settings: settingsAfter(state.settings, event.data.changed) }
        : state
    case "webhook.reactivated":
      return state.status === "failed" ? { status: "active", settings: state.settings } : state
    case "webhook.failed":
      return state.status === "active" ? { status: "failed", settings: state.settings } : state
    case "webhook.deleted":
      return { status: "deleted" }
  }
}

export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = {
  initialState: { status: "absent" },
  evolve,
  decide
}
