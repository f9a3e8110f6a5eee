import { describe, expect, it } from "@effect/vitest"
import { prop } from "../../testing/property.js"
import * as fc from "fast-check"
import { createHash, createHmac } from "node:crypto"
import { hmacSha256, sha256 } from "./sha256.js"

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")
const nodeSha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")
const nodeHmac = (key: Uint8Array, bytes: Uint8Array): string => createHmac("sha256", key).update(bytes).digest("hex")

// Around the padding boundaries: 55 bytes still fit the length in one block, 56 need a second.
const EDGE_LENGTHS = [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000]
const bytesOfLength = (length: number): fc.Arbitrary<Uint8Array> => fc.uint8Array({ minLength: length, maxLength: length })

describe("sha256", () => {
  it("matches the FIPS 180-4 example for abc", () => {
    expect(hex(sha256(Uint8Array.from([0x61, 0x62, 0x63]))))
      .toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  prop("agrees with node:crypto at the padding edges", [fc.constantFrom(...EDGE_LENGTHS).chain(bytesOfLength)], ([bytes]) => {
    expect(hex(sha256(bytes))).toBe(nodeSha256(bytes))
  })

  prop("agrees with node:crypto on random byte arrays", [fc.uint8Array({ maxLength: 1500 })], ([bytes]) => {
    expect(hex(sha256(bytes))).toBe(nodeSha256(bytes))
  })

  it("hashes a view into a larger buffer by its own bytes only", () => {
    const buffer = Uint8Array.from({ length: 100 }, (_, i) => i)
    const view = buffer.subarray(10, 80)
    expect(hex(sha256(view))).toBe(nodeSha256(view))
  })
})

describe("hmacSha256", () => {
  prop(
    "agrees with node:crypto for keys shorter than, equal to and longer than a block",
    [fc.constantFrom(0, 1, 32, 63, 64, 65, 200).chain(bytesOfLength), fc.constantFrom(...EDGE_LENGTHS).chain(bytesOfLength)],
    ([key, message]) => {
      expect(hex(hmacSha256(key, message))).toBe(nodeHmac(key, message))
    }
  )

  const key = fc.uint8Array({ maxLength: 150 })
  prop("agrees with node:crypto on random keys and messages", [key, fc.uint8Array({ maxLength: 1000 })], ([key, message]) => {
    expect(hex(hmacSha256(key, message))).toBe(nodeHmac(key, message))
  })
})
