/**
 * Orders strings by Unicode code point, which is also UTF-8 byte order and PostgreSQL's
 * `COLLATE "C"` order. JavaScript's `<` compares UTF-16 code units instead, which puts an astral
 * character (a surrogate pair, 0xD800–0xDBFF first) before BMP characters from U+E000 up.
 */
export const compareText = (a: string, b: string): number => {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const unitA = a.charCodeAt(i)
    const unitB = b.charCodeAt(i)
    if (unitA === unitB) continue
    // At the first differing unit a high surrogate yields the whole astral code point; a differing
    // low surrogate follows an equal high one, so comparing the units alone is already right.
    const pointA = a.codePointAt(i) ?? unitA
    const pointB = b.codePointAt(i) ?? unitB
    return pointA < pointB ? -1 : 1
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}
