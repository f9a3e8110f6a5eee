import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { decodeCursor, encodeCursor } from "./cursor.js"
import { queryFingerprint } from "./fingerprint.js"
import { parseFilter } from "./parseFilter.js"
import { refOf, testCatalog } from "../testing/testCatalog.js"

// Found by the hostile-input fuzz (test/hostile): a filter or a cursor whose JSON spells U+0000
// reached PostgreSQL as a bind parameter, which it refuses, and the answer was a 500. Query strings
// are checked for such text before parsing, but JSON escapes only appear once the text is parsed.

const UNSTORABLE = "contains U+0000 or an unpaired surrogate, which no record can hold"

const detailsOf = (filter: unknown) => {
  const result = parseFilter(JSON.stringify(filter), testCatalog)
  return Result.isFailure(result) ? result.failure.details : []
}

describe("filter operands that no record can hold", () => {
  for (const text of ["a\u0000b", "\u0000", "\ud800", "x\udfff", "\udc00\ud800"]) {
    it(`are refused at their path: ${JSON.stringify(text)}`, () => {
      expect(detailsOf({ name: text })).toEqual([{ path: "filter.name", message: UNSTORABLE }])
      expect(detailsOf({ name: { $ne: text } })).toEqual([{ path: "filter.name.$ne", message: UNSTORABLE }])
      expect(detailsOf({ owner: { $gt: text } })).toEqual([{ path: "filter.owner.$gt", message: UNSTORABLE }])
      expect(detailsOf({ name: { $in: ["ok", text] } })).toEqual([{ path: "filter.name.$in[1]", message: UNSTORABLE }])
      expect(detailsOf({ $or: [{ email: { $contains: text } }] })).toEqual([{ path: "filter.$or[0].email.$contains", message: UNSTORABLE }])
      expect(detailsOf({ email: { $starts_with: text } })).toEqual([{ path: "filter.email.$starts_with", message: UNSTORABLE }])
    })
  }

  it("leave paired surrogates and other text alone", () => {
    expect(detailsOf({ name: "😀 Zoë", email: { $contains: "\ud83d\ude00" } })).toEqual([])
  })
})

describe("cursors re-encoded with text no record can hold", () => {
  const fingerprint = queryFingerprint({ _tag: "True" }, { field: refOf("name"), direction: "asc" }, "live")

  it("are malformed, whether the text is the sort value or the id", () => {
    for (const position of [
      { value: "a\u0000", id: "con_1" },
      { value: "a", id: "con_\u0000" },
      { value: "\ud800", id: "con_1" },
      { value: null, id: "\udfff" }
    ]) {
      expect(decodeCursor(encodeCursor(fingerprint, position), fingerprint)).toEqual(
        Result.fail(expect.objectContaining({ details: [{ path: "cursor", message: "is not a valid cursor" }] }))
      )
    }
  })

  it("while a position with any other text still comes back", () => {
    const position = { value: "Zoë 😀 '; --", id: "con_1" }
    expect(decodeCursor(encodeCursor(fingerprint, position), fingerprint)).toEqual(Result.succeed(position))
  })
})
