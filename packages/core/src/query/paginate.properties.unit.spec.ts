import { expect } from "@effect/vitest"
import { prop } from "../testing/property.js"
import { Result } from "effect"
import * as fc from "fast-check"
import type { JsonObject } from "../json.js"
import type { StoredDocument } from "../storage/documents.js"
import type { DocumentQuery } from "./ast.js"
import { evaluate } from "./evaluate.js"
import { canonicalJson } from "./fingerprint.js"
import { paginate } from "./paginate.js"
import { type ListParams, type ListSpec, parseListQuery } from "./parseListQuery.js"
import { runQuery } from "./runQuery.js"
import { compareSortKeys } from "./sortKeys.js"
import { refOf, testCatalog } from "../testing/testCatalog.js"

const spec = (scope: "live" | "deleted"): ListSpec => ({
  catalog: testCatalog,
  scope,
  baseWhere: { _tag: "True" },
  defaultSort: { field: refOf("at"), direction: "desc" },
  allow: { filter: true, search: true, sort: true },
  extraParams: []
})

// Few distinct values, so that sort ties and absent values are common.
const data: fc.Arbitrary<JsonObject> = fc.record(
  {
    name: fc.constantFrom("Ada", "ada", "Bob", "Émile", "😀", "\uFF21", null),
    email: fc.constantFrom("ada@x.io", "bob@acme.com", null),
    score: fc.constantFrom(-1, 0, 2.5, 7, null, "7"),
    vip: fc.constantFrom(true, false, null),
    tier: fc.constantFrom("gold", "silver", "bronze"),
    day: fc.constantFrom("2026-01-01", "2026-02-28", "later"),
    at: fc.constantFrom("2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z", null)
  },
  { requiredKeys: [] }
)

const documents: fc.Arbitrary<ReadonlyArray<StoredDocument>> = fc
  .uniqueArray(fc.string({ unit: fc.constantFrom("a", "B", "0", "é", "😀"), minLength: 1, maxLength: 4 }), { maxLength: 40 })
  .chain((ids) =>
    fc.tuple(
      ...ids.map((id) =>
        fc.record({ data, deleted: fc.boolean() }).map(
          ({ data, deleted }): StoredDocument => ({
            collection: "contact",
            workspaceId: "ws",
            id,
            version: 1,
            deletedAt: deleted ? "2026-01-05T00:00:00.000Z" : null,
            data
          })
        )
      )
    )
  )

const filters = [
  undefined,
  "{}",
  `{"vip": true}`,
  `{"score": {"$gte": 0}}`,
  `{"$or": [{"tier": "gold"}, {"name": {"$exists": false}}]}`,
  `{"$not": {"name": {"$starts_with": "a"}}}`
]
const sorts = ["name", "-name", "email", "score", "-score", "vip", "-vip", "tier", "-tier", "day", "-day", "at", "-at", undefined]
const searches = [undefined, "ada", "a", "bob ACME"]

const params: fc.Arbitrary<ListParams> = fc.record({
  filter: fc.constantFrom(...filters),
  sort: fc.constantFrom(...sorts),
  search: fc.constantFrom(...searches)
})
const scope = fc.constantFrom<"live" | "deleted">("live", "deleted")

const queryOf = (listParams: ListParams, listScope: "live" | "deleted"): DocumentQuery =>
  Result.getOrThrow(parseListQuery(listParams, spec(listScope)))

prop(
  "walking every page returns each matching document once, in sort order",
  [documents, params, scope, fc.integer({ min: 1, max: 12 })],
  ([docs, listParams, listScope, limit]) => {
    const query = queryOf(listParams, listScope)
    const expected = docs
      .filter((doc) => (doc.deletedAt === null) === (listScope === "live") && evaluate(query.where, doc.data))
      .sort(compareSortKeys(query.sort))
      .map((doc) => doc.id)

    const seen: Array<string> = []
    let cursor: string | undefined
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThanOrEqual(docs.length)
      const pageQuery = queryOf({ ...listParams, limit: String(limit), cursor }, listScope)
      const page = paginate(runQuery(docs, { ...pageQuery, limit: pageQuery.limit + 1 }), pageQuery)
      expect(page.rows.length).toBeLessThanOrEqual(limit)
      if (page.next_cursor !== null) expect(page.rows.length).toBe(limit)
      seen.push(...page.rows.map((row) => row.id))
      if (page.next_cursor === null) break
      cursor = page.next_cursor
    }
    expect(seen).toEqual(expected)
  }
)

prop(
  "a cursor is accepted only by the query it was made for",
  [params, scope, params, scope],
  ([paramsA, scopeA, paramsB, scopeB]) => {
    const queryA = queryOf(paramsA, scopeA)
    const queryB = queryOf(paramsB, scopeB)
    const doc = (id: string): StoredDocument => ({
      collection: "contact",
      workspaceId: "ws",
      id,
      version: 1,
      deletedAt: null,
      data: { name: "Ada", score: 1, at: null }
    })
    const cursor = paginate([doc("x1"), doc("x2")], { ...queryA, limit: 1 }).next_cursor
    expect(cursor).not.toBeNull()

    const reused = parseListQuery({ ...paramsB, cursor: cursor ?? undefined }, spec(scopeB))
    const sameQuery = canonicalJson([queryA.where, queryA.sort, queryA.scope]) === canonicalJson([queryB.where, queryB.sort, queryB.scope])
    if (sameQuery) {
      expect(Result.isSuccess(reused)).toBe(true)
    } else {
      expect(Result.isFailure(reused) && reused.failure.details).toEqual([
        { path: "cursor", message: "was made for another filter, search or sort" }
      ])
    }
  },
  { fastCheck: { numRuns: 300 } }
)
