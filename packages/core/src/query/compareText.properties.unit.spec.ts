import { expect } from "@effect/vitest"
import { prop } from "../testing/property.js"
import * as fc from "fast-check"
import { compareText } from "./compareText.js"

const utf8 = new TextEncoder()
const byteOrder = (a: string, b: string): number => {
  const x = utf8.encode(a)
  const y = utf8.encode(b)
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] ?? 0) < (y[i] ?? 0) ? -1 : 1
  }
  return Math.sign(x.length - y.length)
}

// Characters around the surrogate range, where UTF-16 unit order and code point order part.
const tricky = fc.constantFrom("a", "B", "é", "\uD7FF", "\uE000", "\uFF21", "\uFFFF", "😀", "𝔸", "\u{10FFFF}")
const text = fc.oneof(fc.string({ unit: tricky, maxLength: 5 }), fc.string({ unit: "binary", maxLength: 8 }))

prop("compareText agrees with UTF-8 byte order", [text, text], ([a, b]) => {
  expect(compareText(a, b)).toBe(byteOrder(a, b))
  expect(compareText(b, a)).toBe(byteOrder(b, a))
})
