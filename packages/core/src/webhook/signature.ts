import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { base64Encode, constantTimeEqual } from "./internal/bytes.js"
import { type SecretFormat, secretKey } from "./secrets.js"

export interface WebhookSignatureInput {
  readonly secret: string
  /** How the secret becomes the key; `auto` (the default) reads a well-formed `whsec_` secret as base64. */
  readonly format?: SecretFormat
  /** The `webhook-id` header: the event id. */
  readonly webhookId: string
  /** The `webhook-timestamp` header: whole Unix seconds, written exactly as in the header. */
  readonly timestamp: number
  /** The exact bytes sent; a string is sent as UTF-8. */
  readonly body: string | Uint8Array
}

const SCHEME = "v1"

// Text is signed as UTF-8, a lone surrogate as U+FFFD (TextEncoder's encoding, as Buffer's).
const bytesOf = (body: string | Uint8Array): Uint8Array => (typeof body === "string" ? utf8ToBytes(body) : body)

// HMAC-SHA256 from @noble/hashes: pure TypeScript, audited, no Node API, so core stays portable.
// The timestamp as text: a receiver signs the header's characters, not the number they denote.
const digest = (key: Uint8Array, webhookId: string, timestamp: string, body: string | Uint8Array): string =>
  base64Encode(hmac(sha256, key, concatBytes(utf8ToBytes(`${webhookId}.${timestamp}.`), bytesOf(body))))

/**
 * The Standard Webhooks signature, `v1,<base64 HMAC-SHA256>` over `<id>.<timestamp>.<body>`, the
 * value of both `webhook-signature` and `X-Service-Signature`. It must be computed afresh for
 * every attempt, since the timestamp changes.
 */
export const signWebhookPayload = ({ body, format, secret, timestamp, webhookId }: WebhookSignatureInput): string =>
  `${SCHEME},${digest(secretKey(secret, format), webhookId, String(timestamp), body)}`

/** Node's `IncomingHttpHeaders`, a plain record, or a fetch `Headers`. */
export type WebhookHeaders =
  | { readonly get: (name: string) => string | null }
  | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const hasGet = (headers: WebhookHeaders): headers is { readonly get: (name: string) => string | null } =>
  typeof headers["get"] === "function"

const header = (headers: WebhookHeaders, name: string): string | null => {
  if (hasGet(headers)) return headers.get(name)
  for (const [key, value] of Object.entries(headers)) {
    // A header sent twice arrives as an array; its values are separate signatures.
    if (key.toLowerCase() === name) return typeof value === "string" ? value : Array.isArray(value) ? value.join(" ") : null
  }
  return null
}

export interface VerifyWebhookSignatureOptions {
  readonly secret: string
  /** `raw` for a secret that starts with `whsec_` but was stored before such secrets were decoded. */
  readonly format?: SecretFormat
  readonly headers: WebhookHeaders
  /** The body exactly as received, before any JSON parsing. */
  readonly rawBody: string | Uint8Array
  /** How far `webhook-timestamp` may be from now, either way, against replayed requests. */
  readonly toleranceSeconds?: number
  /** Unix seconds. */
  readonly now?: number
}

const TIMESTAMP = /^\d{1,15}$/

/**
 * For receivers: whether a request carries a valid signature of this secret. Any of several
 * space-separated `v1,…` entries may match (senders list the new and the old secret while
 * rotating). This is the one place in core that reads the clock, when `now` is not given: a
 * receiver checks freshness against its own time.
 */
export const verifyWebhookSignature = ({
  format,
  headers,
  now,
  rawBody,
  secret,
  toleranceSeconds = 300
}: VerifyWebhookSignatureOptions): boolean => {
  const webhookId = header(headers, "webhook-id")
  const timestampText = header(headers, "webhook-timestamp")
  const signatures = header(headers, "webhook-signature")
  if (webhookId === null || timestampText === null || signatures === null) return false
  if (!TIMESTAMP.test(timestampText)) return false
  const current = now ?? Math.floor(Date.now() / 1000)
  if (Math.abs(current - Number(timestampText)) > toleranceSeconds) return false
  const expected = utf8ToBytes(digest(secretKey(secret, format), webhookId, timestampText, rawBody))
  let matched = false
  for (const spaced of signatures.split(" ")) {
    // `Headers.get` joins repeated headers with ", "; base64 has no comma, so a trailing one is that.
    const entry = spaced.endsWith(",") ? spaced.slice(0, -1) : spaced
    const comma = entry.indexOf(",")
    if (comma === -1 || entry.slice(0, comma) !== SCHEME) continue
    // No early exit: every entry is compared, so timing says nothing about which one matched.
    if (constantTimeEqual(utf8ToBytes(entry.slice(comma + 1)), expected)) matched = true
  }
  return matched
}
