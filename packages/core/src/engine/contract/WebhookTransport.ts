import { Context, Effect, Schema } from "effect"
import { ValidationError } from "../../errors.js"

export interface WebhookRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The exact bytes that were signed. */
  readonly body: string
  readonly timeoutMillis: number
  /** Accept loopback and private targets (DEALSTREAM_ALLOW_INSECURE_WEBHOOKS=1, development and tests). */
  readonly allowInsecure: boolean
}

export interface WebhookResponse {
  readonly status: number
  /** Seconds from a `Retry-After` header (delta-seconds or HTTP date), when one was sent. */
  readonly retryAfterSeconds: number | null
}

/** The attempt got no HTTP answer: timeout, refused connection, forbidden target, TLS failure, … */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  message: Schema.String
}) {}

/**
 * How deliveries leave the process. Implementations POST without following redirects, give up after
 * `timeoutMillis`, abort when the calling fiber is interrupted, and refuse (at connect time, so DNS
 * rebinding cannot dodge it) any target that resolves to a loopback, private or link-local address
 * unless `allowInsecure`.
 */
export interface WebhookTransportService {
  readonly post: (request: WebhookRequest) => Effect.Effect<WebhookResponse, TransportError>
  /** Registration-time check of a URL's host: it must resolve, and only to public addresses. */
  readonly checkTarget: (url: string, allowInsecure: boolean) => Effect.Effect<void, ValidationError>
}

export class WebhookTransport extends Context.Service<WebhookTransport, WebhookTransportService>()("@dealstream/core/WebhookTransport") {}

/**
 * For engines built without a way to send HTTP (core alone): registering a webhook is refused with a
 * clear 400 and nothing is ever sent. The host provides a real transport from @dealstream/http.
 */
export const WebhookTransportUnavailable: WebhookTransportService = {
  post: () => Effect.fail(new TransportError({ message: "this engine has no webhook transport" })),
  checkTarget: () => Effect.fail(ValidationError.at("url", "cannot be used: this engine was built without a webhook transport"))
}
