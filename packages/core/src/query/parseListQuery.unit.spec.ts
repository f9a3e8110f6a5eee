import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { ErrorDetail } from "../errors.js"
import type { DocumentQuery, Expr } from "./ast.js"
import { encodeCursor } from "./cursor.js"
import { queryFingerprint } from "./fingerprint.js"
import { type ListParams, type ListSpec, parseListQuery } from "./parseListQuery.js"
import { refOf, testCatalog } from "../testing/testCatalog.js"

const base: Expr = { _tag: "Compare", field: refOf("owner"), op: "eq", value: "u1" }
const spec: ListSpec = {
  catalog: testCatalog,
  scope: "live",
  baseWhere: { _tag: "True" },
  defaultSort: { field: refOf("at"), direction: "desc" },
  allow: { filter: true, search: true, sort: true },
  extraParams: ["owner_id"]
}

const queryOf = (params: ListParams, listSpec = spec): DocumentQuery => {
  const result = parseListQuery(params, listSpec)
  if (Result.isFailure(result)) throw new Error(JSON.stringify(result.failure.details))
  return result.success
}
const errorsOf = (params: ListParams, listSpec = spec): ReadonlyArray<ErrorDetail> => {
  const result = parseListQuery(params, listSpec)
  return Result.isFailure(result) ? result.failure.details : []
}

describe("parseListQuery", () => {
  it("gives the defaults for no parameters", () => {
    expect(queryOf({})).toEqual({ where: { _tag: "True" }, scope: "live", sort: spec.defaultSort, after: null, limit: 25 })
  })

  it("combines base conditions, filter and search, and reads limit, sort and cursor", () => {
    const where: Expr = {
      _tag: "And",
      exprs: [
        base,
        { _tag: "Compare", field: refOf("vip"), op: "eq", value: true },
        { _tag: "Search", fields: [refOf("name"), refOf("email")], wholeWordFields: [refOf("email")], terms: ["ada"] }
      ]
    }
    const sort = { field: refOf("score"), direction: "asc" } as const
    const cursor = encodeCursor(queryFingerprint(where, sort, "deleted"), { value: 3, id: "con_9" })
    const params = { filter: `{"vip": true}`, search: "Ada", sort: "score", limit: "10", cursor, owner_id: "u1" }
    expect(queryOf(params, { ...spec, scope: "deleted", baseWhere: base })).toEqual({
      where,
      scope: "deleted",
      sort,
      after: { value: 3, id: "con_9" },
      limit: 10
    })
  })

  it("rejects unknown parameters, and those the endpoint does not allow", () => {
    expect(errorsOf({ filtr: "{}", owner_id: "u1" })).toEqual([{ path: "filtr", message: "is not a known parameter" }])
    const bare = { ...spec, allow: { filter: false, search: false, sort: false }, extraParams: [] }
    expect(errorsOf({ filter: "{}", search: "a", sort: "score", owner_id: "u1" }, bare).map((d) => d.path)).toEqual([
      "filter",
      "search",
      "sort",
      "owner_id"
    ])
    expect(queryOf({ limit: "3", owner_id: undefined }, bare).limit).toBe(3)
  })

  it("collects the errors of every parameter into one", () => {
    expect(errorsOf({ limit: "0", filter: `{"nope": 1}`, search: "a ".repeat(11), sort: "owner", cursor: "x" }).map((d) => d.path)).toEqual(
      ["limit", "filter.nope", "search", "sort"]
    )
  })

  it("rejects cursors that are malformed or made for another query", () => {
    expect(errorsOf({ cursor: "garbage" })).toEqual([{ path: "cursor", message: "is not a valid cursor" }])
    const other = encodeCursor(queryFingerprint({ _tag: "True" }, spec.defaultSort, "deleted"), { value: null, id: "c" })
    expect(errorsOf({ cursor: other })).toEqual([{ path: "cursor", message: "was made for another filter, search or sort" }])
  })

  it("rejects a cursor whose value the sort field cannot hold", () => {
    const fingerprint = queryFingerprint({ _tag: "True" }, spec.defaultSort, "live")
    expect(errorsOf({ cursor: encodeCursor(fingerprint, { value: 5, id: "c" }) })).toEqual([
      { path: "cursor", message: "is not a valid cursor" }
    ])
    expect(queryOf({ cursor: encodeCursor(fingerprint, { value: "2026-01-01T00:00:00.000Z", id: "c" }) }).after).toEqual({
      value: "2026-01-01T00:00:00.000Z",
      id: "c"
    })
  })
})
