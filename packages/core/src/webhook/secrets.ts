import { utf8ToBytes } from "@noble/hashes/utils.js"
import { base64Decode } from "./internal/bytes.js"
import type { WebhookDocument } from "./projection.js"

/** The Standard Webhooks form of a secret: this prefix, then the key's bytes in base64. */
export const STANDARD_SECRET_PREFIX = "whsec_"
export const STANDARD_SECRET_MIN_BYTES = 24
export const STANDARD_SECRET_MAX_BYTES = 64

/**
 * How a secret becomes the HMAC key. `standard`: the base64 after `whsec_`, decoded (what a
 * Standard Webhooks library does in its default mode). `raw`: the secret's characters as bytes
 * (the library's `format: "raw"`, and how every secret stored before whsec_ secrets were read so
 * was signed). `auto`: standard when the secret is a well-formed whsec_ secret, raw otherwise.
 */
export type SecretFormat = "auto" | "raw" | "standard"

/** The decoded key of a well-formed whsec_ secret (24 to 64 bytes); `null` for any other secret. */
export const standardSecretKey = (secret: string): Uint8Array | null => {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return null
  const key = base64Decode(secret.slice(STANDARD_SECRET_PREFIX.length))
  return key !== null && key.length >= STANDARD_SECRET_MIN_BYTES && key.length <= STANDARD_SECRET_MAX_BYTES ? key : null
}

export const secretKey = (secret: string, format: SecretFormat = "auto"): Uint8Array => {
  if (format === "raw") return utf8ToBytes(secret)
  const standard = standardSecretKey(secret)
  if (standard !== null) return standard
  if (format === "standard") throw new Error(`not a whsec_ secret of ${STANDARD_SECRET_MIN_BYTES} to ${STANDARD_SECRET_MAX_BYTES} bytes`)
  return utf8ToBytes(secret)
}

/** A secret a webhook signs with, and whether it is read in the Standard Webhooks form. */
export interface SigningSecret {
  readonly secret: string
  readonly standard: boolean
}

/** What a webhook document keeps of its secrets. */
export type WebhookSecrets = Pick<WebhookDocument, "secret" | "secret_standard" | "previous_secret">

/**
 * The secrets an attempt made at `unixSeconds` is signed with, newest first: the current one, and
 * during a rotation's overlap the previous one too. Decided from the attempt's own timestamp, so
 * a retry after the overlap carries the new signature alone.
 */
export const signingSecretsAt = (webhook: WebhookSecrets, unixSeconds: number): ReadonlyArray<SigningSecret> => {
  if (webhook.secret === null) return []
  const current = { secret: webhook.secret, standard: webhook.secret_standard === true }
  const previous = webhook.previous_secret
  return previous !== undefined && unixSeconds * 1000 < Date.parse(previous.expires_at)
    ? [current, { secret: previous.secret, standard: previous.secret_standard === true }]
    : [current]
}
