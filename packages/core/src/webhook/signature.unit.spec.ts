import { describe, expect, it } from "@effect/vitest"
import { prop } from "../testing/property.js"
import * as fc from "fast-check"
import { createHmac } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { signWebhookPayload, verifyWebhookSignature } from "./signature.js"

const secret = "whsec-test-secret-0123"
const webhookId = "evt_01J0000000000000000000000"
const body = `{"id":"evt_01J0000000000000000000000","type":"deal.created","data":{"deal":{"name":"Caf\u00e9 \u{1f600}"}}}`
const now = Math.floor(Date.now() / 1000)

const headersFor = (signature: string, timestamp: number = now): Record<string, string> => ({
  "webhook-id": webhookId,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": signature
})

// What a secret may hold: visible ASCII, as the input parser enforces.
const secretArb = fc.string({ minLength: 8, maxLength: 64, unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)) })
const bodyArb = fc.oneof(fc.json(), fc.string({ unit: "grapheme" }))

describe("signWebhookPayload", () => {
  it("is v1, then base64 of HMAC-SHA256 over id.timestamp.body", () => {
    const expected = createHmac("sha256", secret).update(`${webhookId}.1700000000.${body}`, "utf8").digest("base64")
    expect(signWebhookPayload({ secret, webhookId, timestamp: 1700000000, body })).toBe(`v1,${expected}`)
  })

  prop("signs text as its UTF-8 bytes, lone surrogates as U+FFFD, as node:crypto does", [fc.string({ unit: "binary" })], ([text]) => {
    const expected = createHmac("sha256", secret)
      .update(Buffer.from(`${webhookId}.1700000000.${text}`, "utf8"))
      .digest("base64")
    expect(signWebhookPayload({ secret, webhookId, timestamp: 1700000000, body: text })).toBe(`v1,${expected}`)
  })

  it("signs raw bytes exactly as the same text", () => {
    const bytes = Buffer.from(body, "utf8")
    expect(signWebhookPayload({ secret, webhookId, timestamp: now, body: new Uint8Array(bytes) })).toBe(
      signWebhookPayload({ secret, webhookId, timestamp: now, body })
    )
  })

  prop("is accepted by the standardwebhooks package", [secretArb, bodyArb], ([key, payload]) => {
    const signature = signWebhookPayload({ secret: key, webhookId, timestamp: now, body: payload })
    expect(() => new Webhook(key, { format: "raw" }).verify(payload, headersFor(signature), { jsonParse: false })).not.toThrow()
  })

  prop("is accepted by verifyWebhookSignature", [secretArb, bodyArb], ([key, payload]) => {
    const signature = signWebhookPayload({ secret: key, webhookId, timestamp: now, body: payload })
    expect(verifyWebhookSignature({ secret: key, headers: headersFor(signature), rawBody: payload, now })).toBe(true)
  })

  it("is refused by standardwebhooks when the body was tampered with", () => {
    const signature = signWebhookPayload({ secret, webhookId, timestamp: now, body })
    expect(() => new Webhook(secret, { format: "raw" }).verify(`${body} `, headersFor(signature))).toThrow()
  })
})

describe("verifyWebhookSignature", () => {
  const signature = signWebhookPayload({ secret, webhookId, timestamp: now, body })
  const verify = (overrides: Partial<Parameters<typeof verifyWebhookSignature>[0]>): boolean =>
    verifyWebhookSignature({ secret, headers: headersFor(signature), rawBody: body, now, ...overrides })

  it("accepts the untouched request, as text or as bytes", () => {
    expect(verify({})).toBe(true)
    expect(verify({ rawBody: new Uint8Array(Buffer.from(body, "utf8")) })).toBe(true)
  })

  prop(
    "refuses any change to the body",
    [fc.integer({ min: 0, max: body.length - 1 }), fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code))],
    ([i, c]) => {
      const tampered = body.slice(0, i) + c + body.slice(i + 1)
      expect(verify({ rawBody: tampered })).toBe(tampered === body)
    }
  )

  it("refuses another secret, another id or another timestamp", () => {
    expect(verify({ secret: `${secret}x` })).toBe(false)
    expect(verify({ headers: { ...headersFor(signature), "webhook-id": "evt_other" } })).toBe(false)
    expect(verify({ headers: headersFor(signature, now - 1) })).toBe(false)
  })

  it("checks the timestamp against the tolerance on both sides, edges included", () => {
    const signedAt = (timestamp: number) => headersFor(signWebhookPayload({ secret, webhookId, timestamp, body }), timestamp)
    expect(verify({ headers: signedAt(now - 300) })).toBe(true)
    expect(verify({ headers: signedAt(now + 300) })).toBe(true)
    expect(verify({ headers: signedAt(now - 301) })).toBe(false)
    expect(verify({ headers: signedAt(now + 301) })).toBe(false)
    expect(verify({ headers: signedAt(now - 301), toleranceSeconds: 301 })).toBe(true)
  })

  it("reads the clock when no time is given", () => {
    const fresh = headersFor(signWebhookPayload({ secret, webhookId, timestamp: now, body }))
    expect(verifyWebhookSignature({ secret, headers: fresh, rawBody: body })).toBe(true)
    const old = headersFor(signWebhookPayload({ secret, webhookId, timestamp: now - 3600, body }), now - 3600)
    expect(verifyWebhookSignature({ secret, headers: old, rawBody: body })).toBe(false)
  })

  it("refuses missing headers and a timestamp that is not whole seconds", () => {
    const { "webhook-signature": _, ...unsigned } = headersFor(signature)
    expect(verify({ headers: unsigned })).toBe(false)
    expect(verify({ headers: { ...headersFor(signature), "webhook-timestamp": `${now}.0` } })).toBe(false)
    expect(verify({ headers: { ...headersFor(signature), "webhook-timestamp": "soon" } })).toBe(false)
  })

  it("accepts any matching entry among several, and only v1 entries", () => {
    const other = signWebhookPayload({ secret: "another-secret", webhookId, timestamp: now, body })
    expect(verify({ headers: headersFor(`${other} ${signature}`) })).toBe(true)
    expect(verify({ headers: headersFor(`${other} v2,${signature.slice(3)}`) })).toBe(false)
    expect(verify({ headers: headersFor(other) })).toBe(false)
  })

  it("reads header names case-insensitively, from a record, an array value or a Headers", () => {
    expect(
      verify({
        headers: { "Webhook-Id": webhookId, "WEBHOOK-TIMESTAMP": String(now), "Webhook-Signature": signature }
      })
    ).toBe(true)
    expect(verify({ headers: { ...headersFor(signature), "webhook-signature": ["v1,AAAA", signature] } })).toBe(true)
    const fetchHeaders = new Headers({ "Webhook-Id": webhookId, "Webhook-Timestamp": String(now) })
    fetchHeaders.append("Webhook-Signature", "v1,AAAA")
    fetchHeaders.append("Webhook-Signature", signature)
    expect(verify({ headers: fetchHeaders })).toBe(true)
  })
})
