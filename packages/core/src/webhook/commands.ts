import type { WebhookPatch } from "./input.js"

/** `url`, `events` and `secret` come from `parseWebhookCreate`. */
export interface CreateWebhook {
  readonly type: "CreateWebhook"
  readonly id: string
  readonly at: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly secret: string | null
}

/** `fields` comes from `parseWebhookPatch`. */
export interface UpdateWebhook {
  readonly type: "UpdateWebhook"
  readonly id: string
  readonly at: string
  readonly fields: WebhookPatch
  /** The recovery job `fields.recover_since` starts, made by the engine beforehand. */
  readonly recoveryId?: string
}

/** Starts a recovery job: at most one runs per webhook, and only for an active webhook. */
export interface StartWebhookRecovery {
  readonly type: "StartWebhookRecovery"
  readonly id: string
  readonly at: string
  readonly recoveryId: string
  readonly since: string
}

/** The job finished (or was found finished): the webhook may start another. */
export interface EndWebhookRecovery {
  readonly type: "EndWebhookRecovery"
  readonly id: string
  readonly at: string
  readonly recoveryId: string
}

/** Sent by the delivery worker; repeating it is harmless. */
export interface MarkWebhookFailed {
  readonly type: "MarkWebhookFailed"
  readonly id: string
  readonly at: string
  readonly reason: "gone" | "exhausted"
}

export interface DeleteWebhook {
  readonly type: "DeleteWebhook"
  readonly id: string
  readonly at: string
}

export type WebhookCommand = CreateWebhook | UpdateWebhook | MarkWebhookFailed | DeleteWebhook | StartWebhookRecovery | EndWebhookRecovery
