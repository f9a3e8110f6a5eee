import { Context, Layer } from "effect"
import { DEFAULT_DELIVERY_TIMEOUT, DEFAULT_RETRY_SCHEDULE } from "../delivery/index.js"

export interface WebhookConfigService {
  readonly allowInsecure: boolean
  /** Delays in ms before retry 1, 2, …; an attempt beyond them fails the delivery and the webhook. */
  readonly retrySchedule: ReadonlyArray<number>
  readonly timeoutMillis: number
}

export class WebhookConfig extends Context.Service<WebhookConfig, WebhookConfigService>()("@dealstream/core/WebhookConfig") {
  static readonly defaults: WebhookConfigService = {
    allowInsecure: false,
    retrySchedule: DEFAULT_RETRY_SCHEDULE,
    timeoutMillis: DEFAULT_DELIVERY_TIMEOUT
  }
  static readonly layer = (config: Partial<WebhookConfigService> = {}) =>
    Layer.succeed(WebhookConfig, { ...WebhookConfig.defaults, ...config })
}
