import { describe, expect, it } from "@effect/vitest"
import { prop } from "../../testing/property.js"
import * as fc from "fast-check"
import { base64Encode, constantTimeEqual } from "./bytes.js"

describe("base64Encode", () => {
  prop("agrees with Buffer, padding included", [fc.uint8Array({ maxLength: 100 })], ([bytes]) => {
    expect(base64Encode(bytes)).toBe(Buffer.from(bytes).toString("base64"))
  })

  it("pads to a multiple of four", () => {
    expect([0, 1, 2, 3].map((n) => base64Encode(Uint8Array.from({ length: n }, () => 0xff))))
      .toEqual(["", "/w==", "//8=", "////"])
  })
})

describe("constantTimeEqual", () => {
  prop("is byte equality", [fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 })], ([a, b]) => {
    expect(constantTimeEqual(a, b)).toBe(Buffer.from(a).equals(Buffer.from(b)))
    expect(constantTimeEqual(a, Uint8Array.from(a))).toBe(true)
  })
})
