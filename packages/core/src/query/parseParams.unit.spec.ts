import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { SortSpec } from "./ast.js"
import { parseLimit } from "./parseLimit.js"
import { parseSearch } from "./parseSearch.js"
import { parseSort } from "./parseSort.js"
import { refOf, testCatalog } from "../testing/testCatalog.js"

const fallback: SortSpec = { field: refOf("at"), direction: "desc" }

describe("parseLimit", () => {
  it("defaults to 25 and accepts 1 to 100", () => {
    expect(parseLimit(undefined)).toEqual(Result.succeed(25))
    expect(parseLimit("1")).toEqual(Result.succeed(1))
    expect(parseLimit("100")).toEqual(Result.succeed(100))
    expect(parseLimit("007")).toEqual(Result.succeed(7))
  })

  it("rejects anything else at `limit`, never clamping", () => {
    for (const raw of ["0", "101", "1000000000000000000000", "-1", "2.5", "1e2", " 5", "", "ten", "0x10"]) {
      expect(parseLimit(raw)).toEqual(
        Result.fail(
          expect.objectContaining({
            details: [{ path: "limit", message: "must be an integer from 1 to 100" }]
          })
        )
      )
    }
  })
})

describe("parseSort", () => {
  it("falls back when absent", () => {
    expect(parseSort(undefined, testCatalog, fallback)).toEqual(Result.succeed(fallback))
  })

  it("reads `field` as ascending and `-field` as descending", () => {
    expect(parseSort("score", testCatalog, fallback)).toEqual(Result.succeed({ field: refOf("score"), direction: "asc" }))
    expect(parseSort("-day", testCatalog, fallback)).toEqual(Result.succeed({ field: refOf("day"), direction: "desc" }))
  })

  it("rejects unknown and unsortable fields at `sort`, naming the sortable ones", () => {
    for (const raw of ["industry", "-owner", "", "-", "--score", "+score", "score "]) {
      const result = parseSort(raw, testCatalog, fallback)
      if (Result.isSuccess(result)) throw new Error(`accepted ${raw}`)
      expect(result.failure.details.map((d) => d.path)).toEqual(["sort"])
      expect(result.failure.details[0]?.message).toContain("sortable fields: name, email, score, vip, tier, day, at")
    }
  })
})

describe("parseSearch", () => {
  it("is null when absent or blank", () => {
    expect(parseSearch(undefined, testCatalog)).toEqual(Result.succeed(null))
    expect(parseSearch(" \t ", testCatalog)).toEqual(Result.succeed(null))
  })

  it("lowercases whitespace-separated terms over the searchable fields", () => {
    expect(parseSearch("  Jane\t ACME@x.io ", testCatalog)).toEqual(
      Result.succeed({
        _tag: "Search",
        fields: [refOf("name"), refOf("email")],
        wholeWordFields: [refOf("email")],
        terms: ["jane", "acme@x.io"]
      })
    )
  })

  it("rejects more than 200 characters or 10 terms at `search`", () => {
    const tooLong = parseSearch("a".repeat(201), testCatalog)
    const tooMany = parseSearch("a b c d e f g h i j k", testCatalog)
    expect(Result.isFailure(tooLong) && tooLong.failure.details).toEqual([{ path: "search", message: "is longer than 200 characters" }])
    expect(Result.isFailure(tooMany) && tooMany.failure.details).toEqual([{ path: "search", message: "has more than 10 terms" }])
    expect(Result.isSuccess(parseSearch("a b c d e f g h i j", testCatalog))).toBe(true)
  })
})
