/**
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) in plain TypeScript: core runs without Node's
 * crypto, and payloads are small, so speed does not matter here.
 */

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
])

// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
const INITIAL: Words = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]

const BLOCK = 64

type Words = [number, number, number, number, number, number, number, number]

const addWords = (x: Words, y: Words): Words => x.map((n, i) => (n + (y[i] ?? 0)) >>> 0) as Words

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n))

/** The message, a 0x80 byte, zeros, and its length in bits as 64-bit big-endian: whole blocks. */
const padded = (message: Uint8Array): Uint8Array => {
  const length = Math.ceil((message.length + 9) / BLOCK) * BLOCK
  const out = new Uint8Array(length)
  out.set(message)
  out[message.length] = 0x80
  const view = new DataView(out.buffer)
  // The bit length can pass 2^32, beyond what 32-bit operators hold.
  view.setUint32(length - 8, Math.floor(message.length / 0x20000000))
  view.setUint32(length - 4, (message.length * 8) >>> 0)
  return out
}

export const sha256 = (message: Uint8Array): Uint8Array => {
  const data = padded(message)
  const view = new DataView(data.buffer)
  let h: Words = INITIAL
  // A Uint32Array store wraps modulo 2^32, the arithmetic SHA-256 wants.
  const w = new Uint32Array(64)
  for (let block = 0; block < data.length; block += BLOCK) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block + t * 4)
    for (let t = 16; t < 64; t++) {
      const w15 = w[t - 15] ?? 0
      const w2 = w[t - 2] ?? 0
      const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3)
      const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10)
      w[t] = (w[t - 16] ?? 0) + s0 + (w[t - 7] ?? 0) + s1
    }
    let v = h
    for (let t = 0; t < 64; t++) {
      const [a, b, c, d, e, f, g, hh] = v
      const t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[t] ?? 0) + (w[t] ?? 0)
      const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))
      v = [(t1 + t2) >>> 0, a, b, c, (d + t1) >>> 0, e, f, g]
    }
    h = addWords(h, v)
  }
  const digest = new Uint8Array(32)
  const out = new DataView(digest.buffer)
  for (const [i, word] of h.entries()) out.setUint32(i * 4, word)
  return digest
}

export const hmacSha256 = (key: Uint8Array, message: Uint8Array): Uint8Array => {
  // A key longer than a block is hashed first; a shorter one is padded with zeros.
  const block = new Uint8Array(BLOCK)
  block.set(key.length > BLOCK ? sha256(key) : key)
  const inner = new Uint8Array(BLOCK + message.length)
  const outer = new Uint8Array(BLOCK + 32)
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = (block[i] ?? 0) ^ 0x36
    outer[i] = (block[i] ?? 0) ^ 0x5c
  }
  inner.set(message, BLOCK)
  outer.set(sha256(inner), BLOCK)
  return sha256(outer)
}
