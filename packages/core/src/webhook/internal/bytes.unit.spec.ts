import { describe, expect, it } from "@effect/vitest"
import { prop } from "../../testing/property.js"
import * as fc from "fast-check"
import { base64Decode, base64Encode, constantTimeEqual } from "./bytes.js"

describe("base64Encode", () => {
  prop("agrees with Buffer, padding included", [fc.uint8Array({ maxLength: 100 })], ([bytes]) => {
    expect(base64Encode(bytes)).toBe(Buffer.from(bytes).toString("base64"))
  })

  it("pads to a multiple of four", () => {
    expect([0, 1, 2, 3].map((n) => base64Encode(Uint8Array.from({ length: n }, () => 0xff)))).toEqual(["", "/w==", "//8=", "////"])
  })
})

describe("constantTimeEqual", () => {
  prop("is byte equality", [fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 })], ([a, b]) => {
    expect(constantTimeEqual(a, b)).toBe(Buffer.from(a).equals(Buffer.from(b)))
    expect(constantTimeEqual(a, Uint8Array.from(a))).toBe(true)
  })
})

describe("base64Decode", () => {
  prop("undoes base64Encode", [fc.uint8Array({ maxLength: 100 })], ([bytes]) => {
    expect(base64Decode(base64Encode(bytes))).toEqual(bytes)
  })

  prop("refuses what is not padded standard base64", [fc.string({ maxLength: 12 })], ([text]) => {
    const strict = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)
    const decoded = base64Decode(text)
    expect(decoded !== null).toBe(strict)
    if (decoded !== null) expect(Buffer.from(decoded)).toEqual(Buffer.from(text, "base64"))
  })

  it("refuses padding in the middle, unpadded tails and the URL alphabet", () => {
    expect(["AA==AAAA", "AAA", "AA-_", "A===", "===="].map(base64Decode)).toEqual([null, null, null, null, null])
  })
})
