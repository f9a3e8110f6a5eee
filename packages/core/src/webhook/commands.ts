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

export type WebhookCommand = CreateWebhook | UpdateWebhook | MarkWebhookFailed | DeleteWebhook
