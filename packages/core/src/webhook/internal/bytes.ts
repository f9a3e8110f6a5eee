/**
 * The byte helpers signing needs that @noble/hashes does not carry: base64 and a comparison
 * in constant time. core uses no Node API (no Buffer, no node:crypto), so they are written out.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/** Standard base64 with padding (RFC 4648 §4), the encoding of Standard Webhooks signatures. */
export const base64Encode = (bytes: Uint8Array): string => {
  let out = ""
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0
    const b = bytes[i + 1] ?? 0
    const c = bytes[i + 2] ?? 0
    const triple = (a << 16) | (b << 8) | c
    const left = bytes.length - i
    const digit = (shift: number): string => ALPHABET.charAt((triple >> shift) & 63)
    out += digit(18) + digit(12) + (left > 1 ? digit(6) : "=") + (left > 2 ? digit(0) : "=")
  }
  return out
}

/**
 * Strict standard base64 (RFC 4648 §4): padded to a multiple of four, the standard alphabet only.
 * `null` for anything else, so a malformed secret is refused rather than read as other bytes.
 */
export const base64Decode = (text: string): Uint8Array | null => {
  if (text.length % 4 !== 0) return null
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0
  const out = new Uint8Array((text.length / 4) * 3 - padding)
  let written = 0
  for (let i = 0; i < text.length; i += 4) {
    let triple = 0
    for (let j = 0; j < 4; j++) {
      const char = text.charAt(i + j)
      const last = i + 4 === text.length
      const value = char === "=" && last && j >= 4 - padding ? 0 : ALPHABET.indexOf(char)
      if (value === -1) return null
      triple = (triple << 6) | value
    }
    for (const shift of [16, 8, 0]) {
      if (written < out.length) out[written++] = (triple >> shift) & 255
    }
  }
  return out
}

/**
 * Equality whose running time does not depend on where the inputs differ, so a forger cannot find
 * a valid signature byte by byte from response times. Only the length may leak, and it is public.
 */
export const constantTimeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0)
  return difference === 0
}
