import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { ErrorDetail } from "../errors.js"
import type { Expr } from "./ast.js"
import { parseFilter } from "./parseFilter.js"
import { refOf, testCatalog } from "../testing/testCatalog.js"

const exprOf = (text: string): Expr => {
  const result = parseFilter(text, testCatalog)
  if (Result.isFailure(result)) throw new Error(`expected a filter, got ${JSON.stringify(result.failure.details)}`)
  return result.success
}

const errorsOf = (text: string): ReadonlyArray<ErrorDetail> => {
  const result = parseFilter(text, testCatalog)
  if (Result.isSuccess(result)) throw new Error(`expected an error, got ${JSON.stringify(result.success)}`)
  return result.failure.details
}

const pathsOf = (text: string) => errorsOf(text).map((detail) => detail.path)

describe("parseFilter", () => {
  describe("builds", () => {
    it("True from an empty object", () => {
      expect(exprOf("{}")).toEqual({ _tag: "True" })
    })

    it("equality from a scalar, and And of several clauses", () => {
      expect(exprOf(`{"name": "Ada", "score": 3}`)).toEqual({
        _tag: "And",
        exprs: [
          { _tag: "Compare", field: refOf("name"), op: "eq", value: "Ada" },
          { _tag: "Compare", field: refOf("score"), op: "eq", value: 3 }
        ]
      })
    })

    it("one expression per operator, all of which must hold", () => {
      expect(exprOf(`{"score": {"$gte": 1, "$lt": 5}}`)).toEqual({
        _tag: "And",
        exprs: [
          { _tag: "Compare", field: refOf("score"), op: "gte", value: 1 },
          { _tag: "Compare", field: refOf("score"), op: "lt", value: 5 }
        ]
      })
    })

    it("null equality as not-exists and $ne null as exists", () => {
      const exists = { _tag: "Exists", field: refOf("name") }
      expect(exprOf(`{"name": null}`)).toEqual({ _tag: "Not", expr: exists })
      expect(exprOf(`{"name": {"$eq": null}}`)).toEqual({ _tag: "Not", expr: exists })
      expect(exprOf(`{"name": {"$ne": null}}`)).toEqual(exists)
      expect(exprOf(`{"name": {"$exists": true}}`)).toEqual(exists)
      expect(exprOf(`{"name": {"$exists": false}}`)).toEqual({ _tag: "Not", expr: exists })
    })

    it("$in and $nin as In and Not(In)", () => {
      const inExpr = { _tag: "In", field: refOf("tier"), values: ["gold", "silver"] }
      expect(exprOf(`{"tier": {"$in": ["gold", "silver"]}}`)).toEqual(inExpr)
      expect(exprOf(`{"tier": {"$nin": ["gold", "silver"]}}`)).toEqual({ _tag: "Not", expr: inExpr })
    })

    it("$contains and $starts_with on text, id and enum fields", () => {
      expect(exprOf(`{"name": {"$contains": "Da"}}`)).toEqual({ _tag: "Contains", field: refOf("name"), value: "Da" })
      expect(exprOf(`{"owner": {"$starts_with": "usr_"}}`)).toEqual({
        _tag: "StartsWith",
        field: refOf("owner"),
        value: "usr_"
      })
      expect(exprOf(`{"tier": {"$contains": "ol"}}`)).toEqual({ _tag: "Contains", field: refOf("tier"), value: "ol" })
    })

    it("$and, $or and $not", () => {
      expect(exprOf(`{"$or": [{"vip": true}, {"$not": {"day": "2026-02-28"}}], "$and": [{"owner": "u1"}]}`)).toEqual({
        _tag: "And",
        exprs: [
          {
            _tag: "Or",
            exprs: [
              { _tag: "Compare", field: refOf("vip"), op: "eq", value: true },
              { _tag: "Not", expr: { _tag: "Compare", field: refOf("day"), op: "eq", value: "2026-02-28" } }
            ]
          },
          { _tag: "Compare", field: refOf("owner"), op: "eq", value: "u1" }
        ]
      })
    })

    it("timestamps normalised to canonical UTC", () => {
      const canonical = (text: string) => {
        const expr = exprOf(JSON.stringify({ at: { $gte: text } }))
        return expr._tag === "Compare" ? expr.value : expr
      }
      expect(canonical("2026-01-01T01:30:00+01:30")).toBe("2026-01-01T00:00:00.000Z")
      expect(canonical("2026-01-01t00:00:00z")).toBe("2026-01-01T00:00:00.000Z")
      expect(canonical("2025-12-31T23:00:00.5-01:00")).toBe("2026-01-01T00:00:00.500Z")
      expect(canonical("2026-01-01T00:00:00.123456Z")).toBe("2026-01-01T00:00:00.123Z")
      expect(canonical("0050-06-01T00:00:00Z")).toBe("0050-06-01T00:00:00.000Z")
    })

    it("dates that exist, leap days included", () => {
      expect(exprOf(`{"day": "2024-02-29"}`)).toEqual({ _tag: "Compare", field: refOf("day"), op: "eq", value: "2024-02-29" })
    })
  })

  describe("rejects", () => {
    it("malformed JSON and non-object top levels at `filter`", () => {
      expect(errorsOf(`{"name": `)).toEqual([{ path: "filter", message: "is not valid JSON" }])
      expect(errorsOf(`[]`)).toEqual([{ path: "filter", message: "must be a JSON object" }])
      expect(errorsOf(`null`)).toEqual([{ path: "filter", message: "must be a JSON object" }])
      expect(errorsOf(`"name"`)).toEqual([{ path: "filter", message: "must be a JSON object" }])
    })

    it("unknown and unfilterable fields", () => {
      expect(errorsOf(`{"industry": "saas"}`)).toEqual([{ path: "filter.industry", message: "is not a known field" }])
      expect(pathsOf(`{"secret": "x"}`)).toEqual(["filter.secret"])
      expect(pathsOf(`{"tags": "t1"}`)).toEqual(["filter.tags"])
    })

    it("unknown operators, at field level and at filter level", () => {
      expect(errorsOf(`{"name": {"$regex": "a"}}`)).toEqual([{ path: "filter.name.$regex", message: "is not a known operator" }])
      expect(pathsOf(`{"$nor": []}`)).toEqual(["filter.$nor"])
      expect(pathsOf(`{"$eq": 1}`)).toEqual(["filter.$eq"])
    })

    it("operands of the wrong type, each at its own path", () => {
      expect(pathsOf(`{"score": "3"}`)).toEqual(["filter.score"])
      expect(pathsOf(`{"vip": "yes"}`)).toEqual(["filter.vip"])
      expect(errorsOf(`{"tier": "platinum"}`)).toEqual([{ path: "filter.tier", message: "must be one of gold, silver, bronze" }])
      expect(pathsOf(`{"name": 3}`)).toEqual(["filter.name"])
      expect(pathsOf(`{"score": 1e400}`)).toEqual(["filter.score"])
      expect(pathsOf(`{"score": {"$gt": null}}`)).toEqual(["filter.score.$gt"])
    })

    it("dates that are not real calendar dates", () => {
      for (const day of ["2026-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "26-01-01", "2026-1-1", 20260101]) {
        expect(pathsOf(JSON.stringify({ day: { $lt: day } }))).toEqual(["filter.day.$lt"])
      }
    })

    it("timestamps that are not RFC 3339 instants", () => {
      for (const at of [
        "2026-01-01",
        "2026-01-01T00:00:00",
        "2026-01-01 00:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T00:00:60Z",
        "2026-01-01T00:00:00+24:00",
        "0000-01-01T00:00:00+01:00",
        "yesterday",
        1767225600000
      ]) {
        expect(errorsOf(JSON.stringify({ at: { $gte: at } }))).toEqual([
          { path: "filter.at.$gte", message: "must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z" }
        ])
      }
    })

    it("ordering operators on booleans and enums, text operators on other types", () => {
      expect(errorsOf(`{"vip": {"$gt": false}}`)).toEqual([{ path: "filter.vip.$gt", message: "cannot be used on a boolean field" }])
      expect(pathsOf(`{"tier": {"$lte": "gold"}}`)).toEqual(["filter.tier.$lte"])
      expect(pathsOf(`{"score": {"$contains": "1"}}`)).toEqual(["filter.score.$contains"])
      expect(pathsOf(`{"day": {"$starts_with": "2026"}}`)).toEqual(["filter.day.$starts_with"])
      expect(pathsOf(`{"name": {"$contains": 1}}`)).toEqual(["filter.name.$contains"])
    })

    it("bad $in and $nin lists, pointing at the offending element", () => {
      expect(pathsOf(`{"tier": {"$in": []}}`)).toEqual(["filter.tier.$in"])
      expect(pathsOf(`{"tier": {"$in": "gold"}}`)).toEqual(["filter.tier.$in"])
      expect(pathsOf(`{"tier": {"$nin": ["gold", "lead", null]}}`)).toEqual(["filter.tier.$nin[1]", "filter.tier.$nin[2]"])
      const many = JSON.stringify({ score: { $in: Array.from({ length: 101 }, (_, i) => i) } })
      expect(errorsOf(many)).toEqual([{ path: "filter.score.$in", message: "must hold at most 100 values" }])
    })

    it("bad $exists operands, empty operator objects and arrays as values", () => {
      expect(pathsOf(`{"name": {"$exists": 1}}`)).toEqual(["filter.name.$exists"])
      expect(pathsOf(`{"name": {}}`)).toEqual(["filter.name"])
      expect(pathsOf(`{"name": ["a", "b"]}`)).toEqual(["filter.name"])
    })

    it("bad $and, $or and $not members, with their index in the path", () => {
      expect(pathsOf(`{"$or": []}`)).toEqual(["filter.$or"])
      expect(pathsOf(`{"$and": {"name": "a"}}`)).toEqual(["filter.$and"])
      expect(pathsOf(`{"$or": [{"name": "a"}, 3]}`)).toEqual(["filter.$or[1]"])
      expect(pathsOf(`{"$not": [{"name": "a"}]}`)).toEqual(["filter.$not"])
      expect(pathsOf(`{"$or": [{"vip": true}, {"tier": {"$in": ["gold", "lead"]}}]}`)).toEqual(["filter.$or[1].tier.$in[1]"])
      expect(pathsOf(`{"$not": {"$and": [{"score": {"$gte": "x"}}]}}`)).toEqual(["filter.$not.$and[0].score.$gte"])
    })

    it("reports every problem at once", () => {
      expect(pathsOf(`{"industry": 1, "score": "x", "at": {"$gte": "2026", "$foo": 1}}`)).toEqual([
        "filter.industry",
        "filter.score",
        "filter.at.$gte",
        "filter.at.$foo"
      ])
    })
  })

  describe("limits", () => {
    it("text longer than 8192 characters", () => {
      const text = JSON.stringify({ name: "x".repeat(8200) })
      expect(errorsOf(text)).toEqual([{ path: "filter", message: "is longer than 8192 characters" }])
    })

    it("nesting depth of 10 filter objects", () => {
      const nested = (levels: number): unknown => (levels === 1 ? { vip: true } : { $not: nested(levels - 1) })
      expect(Result.isSuccess(parseFilter(JSON.stringify(nested(10)), testCatalog))).toBe(true)
      const tooDeep = errorsOf(JSON.stringify(nested(11)))
      expect(tooDeep).toEqual([{ path: `filter${".$not".repeat(10)}`, message: "nests deeper than 10 levels" }])
    })

    it("200 clauses in all", () => {
      const clauses = (n: number) => JSON.stringify({ $or: Array.from({ length: n }, (_, i) => ({ score: i })) })
      // The $or itself is one clause.
      expect(Result.isSuccess(parseFilter(clauses(199), testCatalog))).toBe(true)
      expect(errorsOf(clauses(200))).toEqual([{ path: "filter", message: "has more than 200 clauses" }])
    })
  })
})
