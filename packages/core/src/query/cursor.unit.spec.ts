import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Base64Url } from "effect/encoding"
import { decodeCursor, encodeCursor } from "./cursor.js"
import { canonicalJson, fnv1a64, queryFingerprint } from "./fingerprint.js"
import { refOf } from "../testing/testCatalog.js"

const fingerprint = queryFingerprint({ _tag: "True" }, { field: refOf("score"), direction: "asc" }, "live")
const malformed = [{ path: "cursor", message: "is not a valid cursor" }]

const detailsOf = (raw: string, forFingerprint = fingerprint) => {
  const result = decodeCursor(raw, forFingerprint)
  return Result.isFailure(result) ? result.failure.details : result.success
}

describe("cursors", () => {
  it("carry a position back unchanged", () => {
    for (const value of [null, 0, -1.5, true, "", "Zoë 😀"]) {
      const cursor = encodeCursor(fingerprint, { value, id: "con_1" })
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(decodeCursor(cursor, fingerprint)).toEqual(Result.succeed({ value, id: "con_1" }))
    }
  })

  it("reject malformed text", () => {
    for (const raw of ["", "!!!", "abc", Base64Url.encode("not json"), Base64Url.encode("[1,2]")]) {
      expect(detailsOf(raw)).toEqual(malformed)
    }
  })

  it("reject an edited position", () => {
    const cursor = encodeCursor(fingerprint, { value: 10, id: "con_1" })
    const decoded = JSON.parse(Result.getOrThrow(Base64Url.decodeString(cursor))) as Array<unknown>
    const edited = Base64Url.encode(JSON.stringify([decoded[0], 11, decoded[2], decoded[3]]))
    expect(detailsOf(edited)).toEqual(malformed)
    expect(detailsOf(cursor.slice(0, -2))).toEqual(malformed)
  })

  it("reject a cursor made for another query", () => {
    const other = queryFingerprint({ _tag: "True" }, { field: refOf("score"), direction: "desc" }, "live")
    expect(other).not.toBe(fingerprint)
    expect(detailsOf(encodeCursor(other, { value: 1, id: "con_1" }))).toEqual([
      { path: "cursor", message: "was made for another filter, search or sort" }
    ])
  })

  it("fingerprint a query independently of key order", () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: "x" }] })).toBe(`{"a":[{"c":"x","d":null}],"b":1}`)
    // FNV-1a 64 of the empty input is its offset basis.
    expect(fnv1a64("")).toBe("cbf29ce484222325")
    expect(fnv1a64("a")).not.toBe(fnv1a64("b"))
  })

  it("fnv1a64 on 32-bit halves is FNV-1a 64 as BigInt arithmetic spells it, so cursors made before stay valid", () => {
    const reference = (text: string) => {
      let hash = 0xcbf29ce484222325n
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i)
        hash = ((hash ^ BigInt(unit & 0xff)) * 0x100000001b3n) & 0xffffffffffffffffn
        hash = ((hash ^ BigInt(unit >> 8)) * 0x100000001b3n) & 0xffffffffffffffffn
      }
      return hash.toString(16).padStart(16, "0")
    }
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 64 }), (text) => fnv1a64(text) === reference(text)),
      { numRuns: 2_000 }
    )
  })
})
