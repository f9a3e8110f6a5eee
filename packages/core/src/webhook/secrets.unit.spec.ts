import { describe, expect, it } from "@effect/vitest"
import { prop } from "../testing/property.js"
import * as fc from "fast-check"
import { Webhook } from "standardwebhooks"
import { signingSecretsAt, standardSecretKey } from "./secrets.js"
import { signWebhookPayload, verifyWebhookSignature } from "./signature.js"

const webhookId = "evt_1"
// The library checks freshness against the machine's clock.
const now = Math.floor(Date.now() / 1000)
const body = '{"ok":true}'
const headersFor = (signature: string) => ({ "webhook-id": webhookId, "webhook-timestamp": String(now), "webhook-signature": signature })
const standardSecret = (bytes: Uint8Array) => `whsec_${Buffer.from(bytes).toString("base64")}`

describe("standardSecretKey", () => {
  prop("decodes whsec_ and base64 of 24 to 64 bytes to those bytes", [fc.uint8Array({ minLength: 24, maxLength: 64 })], ([bytes]) => {
    expect(standardSecretKey(standardSecret(bytes))).toEqual(bytes)
  })

  it("refuses other lengths, other alphabets, missing padding and other prefixes", () => {
    expect(standardSecretKey(standardSecret(new Uint8Array(23)))).toBeNull()
    expect(standardSecretKey(standardSecret(new Uint8Array(65)))).toBeNull()
    const valid = standardSecret(new Uint8Array(25).fill(7))
    expect(standardSecretKey(valid)).not.toBeNull()
    expect(standardSecretKey(valid.replace(/=+$/, ""))).toBeNull()
    expect(standardSecretKey(`${valid.slice(0, 10)}_${valid.slice(11)}`)).toBeNull()
    expect(standardSecretKey(valid.replace("whsec_", "whsec-"))).toBeNull()
    expect(standardSecretKey("whsec_test_0123456789")).toBeNull()
  })
})

describe("signing with a whsec_ secret", () => {
  prop(
    "verifies with a Standard Webhooks library in its default mode, and with ours",
    [fc.uint8Array({ minLength: 24, maxLength: 64 })],
    ([bytes]) => {
      const secret = standardSecret(bytes)
      const signature = signWebhookPayload({ secret, format: "standard", webhookId, timestamp: now, body })
      expect(new Webhook(secret).verify(body, headersFor(signature))).toEqual({ ok: true })
      expect(verifyWebhookSignature({ secret, headers: headersFor(signature), rawBody: body, now })).toBe(true)
      // Read as raw characters it is another key: a receiver must know which form it holds.
      expect(verifyWebhookSignature({ secret, format: "raw", headers: headersFor(signature), rawBody: body, now })).toBe(false)
    }
  )

  it("raw, the way secrets stored before the form was read sign, matches the library's raw mode only", () => {
    const secret = standardSecret(new Uint8Array(32).fill(1))
    const signature = signWebhookPayload({ secret, format: "raw", webhookId, timestamp: now, body })
    expect(() => new Webhook(secret, { format: "raw" }).verify(body, headersFor(signature))).not.toThrow()
    expect(() => new Webhook(secret).verify(body, headersFor(signature))).toThrow()
  })
})

describe("signingSecretsAt", () => {
  const now = 1_767_225_600
  const expiresAt = new Date((now + 60) * 1000).toISOString()
  const rotated = {
    secret: "sk_new_0123456789",
    secret_standard: false,
    previous_secret: { secret: "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", secret_standard: true, expires_at: expiresAt }
  }

  it("is none without a secret, the current one alone without an overlap", () => {
    expect(signingSecretsAt({ secret: null }, now)).toEqual([])
    expect(signingSecretsAt({ secret: "sk_only_0123456789" }, now)).toEqual([{ secret: "sk_only_0123456789", standard: false }])
  })

  it("adds the previous secret, second, until the overlap's end, by the attempt's own timestamp", () => {
    expect(signingSecretsAt(rotated, now + 59)).toEqual([
      { secret: "sk_new_0123456789", standard: false },
      { secret: "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", standard: true }
    ])
    expect(signingSecretsAt(rotated, now + 60)).toEqual([{ secret: "sk_new_0123456789", standard: false }])
  })
})
