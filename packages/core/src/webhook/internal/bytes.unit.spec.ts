import { describe, expect, it } from "@effect/vitest"
import { prop } from "../../testing/property.js"
import * as fc from "fast-check"
import { base64Encode, concatBytes, constantTimeEqual, utf8Encode } from "./bytes.js"

describe("utf8Encode", () => {
  prop("agrees with Buffer on any string, lone surrogates included", [fc.string({ unit: "binary" })], ([text]) => {
    expect(Buffer.from(utf8Encode(text)).equals(Buffer.from(text, "utf8"))).toBe(true)
  })

  it("encodes one to four bytes per code point", () => {
    expect([...utf8Encode("a\u00e9\u20ac\u{1f600}")]).toEqual([0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80])
    expect([...utf8Encode("\ud800x")]).toEqual([0xef, 0xbf, 0xbd, 0x78])
  })
})

describe("base64Encode", () => {
  prop("agrees with Buffer, padding included", [fc.uint8Array({ maxLength: 100 })], ([bytes]) => {
    expect(base64Encode(bytes)).toBe(Buffer.from(bytes).toString("base64"))
  })

  it("pads to a multiple of four", () => {
    expect([0, 1, 2, 3].map((n) => base64Encode(Uint8Array.from({ length: n }, () => 0xff))))
      .toEqual(["", "/w==", "//8=", "////"])
  })
})

describe("concatBytes", () => {
  it("joins in order", () => {
    expect([...concatBytes(Uint8Array.from([1]), new Uint8Array(0), Uint8Array.from([2, 3]))]).toEqual([1, 2, 3])
  })
})

describe("constantTimeEqual", () => {
  prop("is byte equality", [fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 })], ([a, b]) => {
    expect(constantTimeEqual(a, b)).toBe(Buffer.from(a).equals(Buffer.from(b)))
    expect(constantTimeEqual(a, Uint8Array.from(a))).toBe(true)
  })
})
