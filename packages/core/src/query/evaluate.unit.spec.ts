import { describe, expect, it } from "@effect/vitest"
import type { JsonObject } from "../json.js"
import type { Expr } from "./ast.js"
import { evaluate } from "./evaluate.js"
import { searchWordsOfDocument } from "./documentSearchWords.js"
import { searchWordsOf } from "./searchWords.js"
import { refOf } from "../testing/testCatalog.js"

const compare = (name: string, op: "eq" | "ne" | "gt" | "lt", value: string | number | boolean): Expr => ({
  _tag: "Compare",
  field: refOf(name),
  op,
  value
})
const search = (...terms: Array<string>): Expr => ({
  _tag: "Search",
  fields: [refOf("name"), refOf("email")],
  wholeWordFields: [refOf("email")],
  terms
})

describe("evaluate", () => {
  it("treats a missing key, null and a value of the wrong type alike as absent", () => {
    for (const data of [{}, { score: null }, { score: "7" }, { score: [7] }] as Array<JsonObject>) {
      expect(evaluate(compare("score", "eq", 7), data)).toBe(false)
      expect(evaluate(compare("score", "gt", 0), data)).toBe(false)
      expect(evaluate(compare("score", "ne", 7), data)).toBe(true)
      expect(evaluate({ _tag: "Exists", field: refOf("score") }, data)).toBe(false)
      expect(evaluate({ _tag: "In", field: refOf("score"), values: [7] }, data)).toBe(false)
    }
    expect(evaluate(compare("score", "eq", 7), { score: 7 })).toBe(true)
  })

  it("treats dates and timestamps that are not in canonical form as absent", () => {
    expect(evaluate({ _tag: "Exists", field: refOf("day") }, { day: "next week" })).toBe(false)
    expect(evaluate({ _tag: "Exists", field: refOf("at") }, { at: "2026-01-01T00:00:00Z" })).toBe(false)
    expect(evaluate({ _tag: "Exists", field: refOf("at") }, { at: "2026-01-01T00:00:00.000Z" })).toBe(true)
  })

  it("negates exactly, absent fields included", () => {
    const expr = compare("name", "eq", "Ada")
    for (const data of [{}, { name: "Ada" }, { name: "Bob" }] as Array<JsonObject>) {
      expect(evaluate({ _tag: "Not", expr }, data)).toBe(!evaluate(expr, data))
    }
  })

  it("orders text by code point, not by UTF-16 unit", () => {
    // U+FF21 (fullwidth A) is one UTF-16 unit above the surrogates; U+1F600 is a surrogate pair.
    expect(evaluate(compare("name", "gt", "\uFF21"), { name: "😀" })).toBe(true)
    expect(evaluate(compare("name", "lt", "a"), { name: "B" })).toBe(true)
  })

  it("matches Contains and StartsWith case-insensitively", () => {
    expect(evaluate({ _tag: "Contains", field: refOf("name"), value: "DA L" }, { name: "Ada Lovelace" })).toBe(true)
    expect(evaluate({ _tag: "StartsWith", field: refOf("name"), value: "lOV" }, { name: "Lovelace" })).toBe(true)
    expect(evaluate({ _tag: "StartsWith", field: refOf("name"), value: "ove" }, { name: "Lovelace" })).toBe(false)
  })

  it("finds an element of an id_array", () => {
    const expr: Expr = { _tag: "HasElement", field: refOf("tags"), value: "t2" }
    expect(evaluate(expr, { tags: ["t1", "t2"] })).toBe(true)
    expect(evaluate(expr, { tags: ["t1"] })).toBe(false)
    expect(evaluate(expr, { tags: "t2" })).toBe(false)
  })

  it("searches word prefixes, every term in some field", () => {
    const jane: JsonObject = { name: "Jane O'Neil-Smith", email: "Jane.Doe@Acme.com" }
    expect(evaluate(search("jan", "smi"), jane)).toBe(true)
    expect(evaluate(search("neil"), jane)).toBe(true)
    expect(evaluate(search("acme"), jane)).toBe(true)
    expect(evaluate(search("jane.doe@acme"), jane)).toBe(true)
    expect(evaluate(search("ith"), jane)).toBe(false)
    expect(evaluate(search("jane", "bob"), jane)).toBe(false)
    // Only the email counts as a whole word.
    expect(evaluate(search("o'neil"), jane)).toBe(false)
  })
})

describe("searchWordsOf", () => {
  it("splits lowercased values on anything but letters and digits", () => {
    expect(searchWordsOf("Jane.Doe+crm@Acme-2.com")).toEqual(["jane", "doe", "crm", "acme", "2", "com"])
    expect(searchWordsOf("Zoë Müller, 東京 R2D2")).toEqual(["zoë", "müller", "東京", "r2d2"])
    expect(searchWordsOf(" -- ")).toEqual([])
  })
})

describe("searchWordsOfDocument", () => {
  it("holds each word once, and the whole lowercased value of wholeWord fields", () => {
    const fields = { fields: [refOf("name"), refOf("email")], wholeWordFields: [refOf("email")] }
    expect(searchWordsOfDocument({ name: "Ada ada", email: "Ada@X.io", score: 3 }, fields)).toEqual(["ada", "x", "io", "ada@x.io"])
  })
})
