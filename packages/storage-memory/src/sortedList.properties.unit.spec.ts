import { prop } from "@dealstream/core/testing"
import { expect } from "@effect/vitest"
import * as fc from "fast-check"
import { SortedList } from "./sortedList.js"

/*
 * SortedList against a sorted array, with chunks of 2 to 5 items so that few items make many
 * chunks: splits, emptied chunks and walks across chunk ends all happen.
 */

type Op =
  | { readonly _tag: "Insert"; readonly item: number }
  | { readonly _tag: "Remove"; readonly item: number }
  | { readonly _tag: "Ascending"; readonly from: number }
  | { readonly _tag: "Descending"; readonly before: number }

const item = fc.integer({ min: 0, max: 40 })
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: item.map((item) => ({ _tag: "Insert" as const, item })) },
  { weight: 2, arbitrary: item.map((item) => ({ _tag: "Remove" as const, item })) },
  { weight: 1, arbitrary: fc.integer({ min: -1, max: 42 }).map((from) => ({ _tag: "Ascending" as const, from })) },
  { weight: 1, arbitrary: fc.integer({ min: -1, max: 42 }).map((before) => ({ _tag: "Descending" as const, before })) }
)

const byNumber = (a: number, b: number) => a - b

prop(
  "SortedList keeps its items in order through inserts and removals and walks either way from anywhere",
  [fc.integer({ min: 2, max: 5 }), fc.uniqueArray(item, { maxLength: 30 }), fc.array(op, { maxLength: 80 })],
  ([chunkSize, initial, ops]) => {
    const list = SortedList.of(byNumber, [...initial], chunkSize)
    let model = [...initial].sort(byNumber)
    for (const op of ops) {
      switch (op._tag) {
        case "Insert":
          if (model.includes(op.item)) continue // items are distinct: the index removes before it inserts
          list.insert(op.item)
          model = [...model, op.item].sort(byNumber)
          break
        case "Remove":
          expect(list.remove(op.item)).toBe(model.includes(op.item))
          model = model.filter((x) => x !== op.item)
          break
        case "Ascending":
          expect([...list.ascending((x) => x >= op.from)]).toEqual(model.filter((x) => x >= op.from))
          break
        case "Descending":
          expect([...list.descending((x) => x < op.before)]).toEqual(model.filter((x) => x < op.before).reverse())
          break
      }
      expect(list.size).toBe(model.length)
    }
    expect([...list.ascending(() => true)]).toEqual(model)
    expect([...list.descending(() => true)]).toEqual([...model].reverse())
  },
  { fastCheck: { numRuns: 300 } }
)
