import { type DocumentQuery, type Expr, type FieldRef, type Json, type JsonObject, type Position, sortValueOf } from "@dealstream/core"
import * as fc from "fast-check"

/*
 * Documents and queries for comparing the memory storage's indexed pages with runQuery. Values come
 * from small pools so that sort ties, absent and stale values (of a type the field no longer has)
 * are common, and the sort fields include custom ones, wrong types and a field nobody holds.
 * Test support only: the package's build leaves this folder out.
 */

const pools: Record<string, ReadonlyArray<Json>> = {
  name: ["Ada", "ada", "Ada Lovelace", "Bob", "zoë", "😀", "\uFF21", "", 3],
  n: [-1, 0, 1.5, 3, "3"],
  flag: [true, false, "true"],
  day: ["2025-12-31", "2026-01-01", "soon"],
  at: ["2026-01-01T00:00:00.000Z", "2026-01-01T12:00:00.000Z", "2026-01-01T00:00:00Z"],
  // a custom field deleted and defined again with another type leaves values of both behind
  cf_tier: ["gold", "silver", 1, 2],
  tags: [["a"], ["a", "b"], []]
}

/** A document's data: each field absent, null, or from its pool. */
export const documentData: fc.Arbitrary<JsonObject> = fc
  .tuple(
    ...Object.entries(pools).map(([name, values]) =>
      fc.option(fc.constantFrom<Json>(...values, null), { nil: undefined }).map((value) => [name, value] as const)
    )
  )
  .map((fields) => {
    const data: Record<string, Json> = {}
    for (const [name, value] of fields) if (value !== undefined) data[name] = value
    return data
  })

/** Ids that sort in code point order apart from UTF-16 order, and "a" < "aa" < "b". */
export const ids = ["a", "aa", "b", "B", "c", "d", "é", "\uFF21", "😀", "e", "f", "g", "h", "i", "j", "k"] as const
export const id = fc.constantFrom(...ids)

export const deletedAts = ["2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"] as const
export const deletedAt: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(...deletedAts) }
)

const sortFields: ReadonlyArray<FieldRef> = [
  { name: "name", type: "text" },
  { name: "n", type: "number" },
  { name: "flag", type: "boolean" },
  { name: "day", type: "date" },
  { name: "at", type: "timestamp" },
  { name: "cf_tier", type: "text" },
  { name: "cf_tier", type: "number" },
  { name: "cf_tier", type: "enum" },
  { name: "tags", type: "id_array" },
  { name: "name", type: "number" },
  { name: "missing", type: "text" },
  { name: "id", type: "id" }
]

const scalar = fc.constantFrom<string | number | boolean>("Ada", "ada", "a", "zoë", "", 0, 1.5, 3, 1, true, false, "gold", "2026-01-01")
const fieldRef = fc.constantFrom(...sortFields)

const leaf: fc.Arbitrary<Expr> = fc.oneof(
  fc.constant<Expr>({ _tag: "True" }),
  fc
    .record({
      field: fieldRef,
      op: fc.constantFrom("eq", "ne", "gt", "gte", "lt", "lte" as const),
      value: scalar
    })
    .map((e): Expr => ({ _tag: "Compare", ...e })),
  fc.record({ field: fieldRef, values: fc.array(scalar, { maxLength: 3 }) }).map((e): Expr => ({ _tag: "In", ...e })),
  fieldRef.map((field): Expr => ({ _tag: "Exists", field })),
  fc.record({ field: fieldRef, value: fc.constantFrom("a", "AD", "ë", "") }).map((e): Expr => ({ _tag: "Contains", ...e })),
  fc.record({ field: fieldRef, value: fc.constantFrom("a", "Ad", "z") }).map((e): Expr => ({ _tag: "StartsWith", ...e })),
  fc.constantFrom("a", "b").map((value): Expr => ({ _tag: "HasElement", field: { name: "tags", type: "id_array" }, value })),
  fc.array(fc.constantFrom("ada", "a", "lov", "gold", "zo"), { minLength: 1, maxLength: 2 }).map(
    (terms): Expr => ({
      _tag: "Search",
      fields: [{ name: "name", type: "text" }],
      wholeWordFields: [{ name: "cf_tier", type: "enum" }],
      terms
    })
  )
)

export const where: fc.Arbitrary<Expr> = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 1, arbitrary: fc.array(leaf, { minLength: 1, maxLength: 3 }).map((exprs): Expr => ({ _tag: "And", exprs })) },
  { weight: 1, arbitrary: fc.array(leaf, { minLength: 1, maxLength: 3 }).map((exprs): Expr => ({ _tag: "Or", exprs })) },
  { weight: 1, arbitrary: leaf.map((expr): Expr => ({ _tag: "Not", expr })) }
)

/**
 * A query without its position: the position is picked when it runs (`positionIn`), from the
 * documents there are then, as a client's cursor would be, or made up.
 */
export interface QueryCase {
  readonly query: Omit<DocumentQuery, "after">
  readonly after:
    | { readonly _tag: "None" }
    | { readonly _tag: "Row"; readonly pick: number }
    | { readonly _tag: "Made"; readonly position: Position }
}

export const queryCase: fc.Arbitrary<QueryCase> = fc.record({
  query: fc.record({
    where,
    scope: fc.constantFrom("live", "deleted" as const),
    sort: fc.record({ field: fc.constantFrom(...sortFields), direction: fc.constantFrom("asc", "desc" as const) }),
    // hand-made limits too: runQuery slices by them, the index must give the same
    limit: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 6 }) }, { weight: 1, arbitrary: fc.constantFrom(-1, 2.5, 100) })
  }),
  after: fc.oneof(
    fc.constant({ _tag: "None" as const }),
    fc.nat().map((pick) => ({ _tag: "Row" as const, pick })),
    fc
      .record({
        value: fc.oneof(scalar, fc.constantFrom(null, Number.NaN, Number.POSITIVE_INFINITY, -0)),
        id: fc.oneof(id, fc.constantFrom("", "ab", "\uFFFF"))
      })
      .map((position) => ({ _tag: "Made" as const, position }))
  )
})

/** The query of a case, its position taken from `rows` (the nth, as a cursor after it would be). */
export const queryOf = (
  { after, query }: QueryCase,
  rows: ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>
): DocumentQuery => {
  switch (after._tag) {
    case "None":
      return { ...query, after: null }
    case "Made":
      return { ...query, after: after.position }
    case "Row": {
      const row = rows[after.pick % Math.max(1, rows.length)]
      return { ...query, after: row === undefined ? null : { value: sortValueOf(row.data, query.sort.field), id: row.id } }
    }
  }
}
