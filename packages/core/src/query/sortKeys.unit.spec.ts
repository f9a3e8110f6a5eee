import { describe, expect, it } from "@effect/vitest"
import type { JsonObject } from "../json.js"
import type { SortSpec } from "./ast.js"
import { compareSortKeys, sortValueOf } from "./sortKeys.js"
import { refOf } from "../testing/testCatalog.js"

const rows: ReadonlyArray<{ id: string; data: JsonObject }> = [
  { id: "d", data: { score: 2 } },
  { id: "a", data: {} },
  { id: "c", data: { score: 10 } },
  { id: "b", data: { score: 2 } },
  { id: "e", data: { score: "1" } },
  { id: "f", data: { score: -3 } }
]
const idsSortedBy = (sort: SortSpec) => [...rows].sort(compareSortKeys(sort)).map((row) => row.id)

describe("compareSortKeys", () => {
  it("puts absent values last ascending, ties broken by id", () => {
    expect(idsSortedBy({ field: refOf("score"), direction: "asc" })).toEqual(["f", "b", "d", "c", "a", "e"])
  })

  it("is the exact reverse descending: absent values first", () => {
    expect(idsSortedBy({ field: refOf("score"), direction: "desc" })).toEqual(["e", "a", "c", "d", "b", "f"])
  })

  it("orders booleans false before true and text by code point", () => {
    const flags = [
      { id: "x", data: { vip: true } },
      { id: "y", data: { vip: false } }
    ]
    expect([...flags].sort(compareSortKeys({ field: refOf("vip"), direction: "asc" })).map((r) => r.id)).toEqual(["y", "x"])
    const names = [
      { id: "1", data: { name: "😀" } },
      { id: "2", data: { name: "\uFF21" } },
      { id: "3", data: { name: "Z" } }
    ]
    expect([...names].sort(compareSortKeys({ field: refOf("name"), direction: "asc" })).map((r) => r.id)).toEqual(["3", "2", "1"])
  })
})

describe("sortValueOf", () => {
  it("is the field's value, or null when absent or of another type", () => {
    expect(sortValueOf({ score: 0 }, refOf("score"))).toBe(0)
    expect(sortValueOf({ score: null }, refOf("score"))).toBeNull()
    expect(sortValueOf({ score: "0" }, refOf("score"))).toBeNull()
    expect(sortValueOf({ day: "2026-01-01T00:00:00.000Z" }, refOf("day"))).toBeNull()
  })
})
