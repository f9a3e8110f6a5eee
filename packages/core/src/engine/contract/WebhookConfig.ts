import { Context, Layer } from "effect"
import { DEFAULT_DELIVERY_TIMEOUT, DEFAULT_RETRY_SCHEDULE } from "../../delivery/index.js"

export interface WebhookConfigService {
  readonly allowInsecure: boolean
  /** Delays in ms before retry 1, 2, …; an attempt beyond them fails the delivery and the webhook. */
  readonly retrySchedule: ReadonlyArray<number>
  readonly timeoutMillis: number
  /**
   * How long a worker's claim of a delivery lasts; past it another worker may send it again
   * (at-least-once). null: the timeout plus 30 s.
   */
  readonly leaseMillis: number | null
  /**
   * Requests in flight at once to one webhook from one worker: a slow receiver holds at most this
   * many of the worker's slots, and a fast one is not flooded.
   */
  readonly endpointConcurrency: number
  /** Requests in flight at once from one worker, to all webhooks. */
  readonly workerConcurrency: number
}

export class WebhookConfig extends Context.Service<WebhookConfig, WebhookConfigService>()("@dealstream/core/WebhookConfig") {
  static readonly defaults: WebhookConfigService = {
    allowInsecure: false,
    retrySchedule: DEFAULT_RETRY_SCHEDULE,
    timeoutMillis: DEFAULT_DELIVERY_TIMEOUT,
    leaseMillis: null,
    endpointConcurrency: 8,
    workerConcurrency: 64
  }
  static readonly layer = (config: Partial<WebhookConfigService> = {}) =>
    Layer.succeed(WebhookConfig, { ...WebhookConfig.defaults, ...config })
}
