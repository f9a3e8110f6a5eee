import type { Expr, Scalar } from "@dealstream/core"
import { arrayCast, fieldKey, jsonTypeOf, scalarParam, valueSql } from "./fieldSql.js"
import type { Params } from "./internal/params.js"
import { searchWordLength } from "./tables.js"

/**
 * Compiles core's filter AST to a SQL condition with the evaluator's two-valued logic: every
 * condition produced here is TRUE or FALSE, never NULL, so `NOT` negates exactly (SQL's NULL would
 * make both `x` and `NOT x` drop a row with an absent field). Each leaf guards its value with
 * `IS NOT NULL` rather than `coalesce(…)`, which keeps the plain comparison visible to the planner
 * as an index condition.
 */
export const compileExpr = (expr: Expr, params: Params): string => {
  const add = (value: unknown) => params.add(value)
  switch (expr._tag) {
    case "True":
      return "TRUE"
    case "And":
      return expr.exprs.length === 0 ? "TRUE" : `(${expr.exprs.map((e) => compileExpr(e, params)).join(" AND ")})`
    case "Or":
      return expr.exprs.length === 0 ? "FALSE" : `(${expr.exprs.map((e) => compileExpr(e, params)).join(" OR ")})`
    case "Not":
      return `(NOT ${compileExpr(expr.expr, params)})`
    case "Compare": {
      // A value of another JSON type than the field's (only a hand-built AST has one) never
      // equals nor orders against a stored value: every op is false but `ne`, as in evaluate.ts.
      if (jsonTypeOf(expr.field.type) !== typeof expr.value) return expr.op === "ne" ? "TRUE" : "FALSE"
      const value = valueSql(expr.field)
      const operand = scalarParam(add, expr.value)
      if (expr.op === "ne") return `(${value} IS NULL OR ${value} <> ${operand})`
      return `(${value} IS NOT NULL AND ${value} ${operators[expr.op]} ${operand})`
    }
    case "In": {
      const type = jsonTypeOf(expr.field.type)
      const operands = expr.values.filter((v): v is Scalar => typeof v === type)
      if (type === null || operands.length === 0) return "FALSE"
      const value = valueSql(expr.field)
      const list = add(operands.map((v) => (typeof v === "number" ? String(v) : v)))
      return `(${value} IS NOT NULL AND ${value} = ANY(${list}::${arrayCast[type]}))`
    }
    case "Exists":
      return expr.field.type === "id_array"
        ? `(jsonb_typeof(data -> ${fieldKey(expr.field.name)}) IS NOT DISTINCT FROM 'array')`
        : `(${valueSql(expr.field)} IS NOT NULL)`
    case "Contains":
    case "StartsWith": {
      if (jsonTypeOf(expr.field.type) !== "string") return "FALSE"
      const value = valueSql(expr.field)
      // `folded` holds the JavaScript toLowerCase() of the string values that it changes, written
      // by this adapter; PostgreSQL's own lower() follows its ICU or libc tables, which differ.
      const folded = `coalesce(folded ->> ${fieldKey(expr.field.name)}, data ->> ${fieldKey(expr.field.name)})`
      const operand = `${add(expr.value.toLowerCase())}::text`
      return expr._tag === "Contains"
        ? `(${value} IS NOT NULL AND strpos(${folded}, ${operand}) > 0)`
        : `(${value} IS NOT NULL AND starts_with(${folded}, ${operand}))`
    }
    case "HasElement": {
      if (expr.field.type !== "id_array") return "FALSE"
      const array = `(data -> ${fieldKey(expr.field.name)})`
      // Containment of a one-string array: true exactly for an array holding that string
      // (not for an object key or a nested array), and answerable from the GIN index.
      return `(${array} IS NOT NULL AND ${array} @> ${add(JSON.stringify([expr.value]))}::jsonb)`
    }
    case "Search": {
      // Every term is a prefix of one of the words core computed for the document when it was
      // written (searchWordsOfDocument), so word splitting and case folding are JavaScript's.
      // This exact test reads every row it is given; compileQuery narrows them by searchCandidates.
      const terms = add(expr.terms)
      return (
        `(NOT EXISTS (SELECT 1 FROM unnest(${terms}::text[]) AS term(t) ` +
        `WHERE NOT EXISTS (SELECT 1 FROM unnest(search_words) AS word(w) WHERE starts_with(w, term.t))))`
      )
    }
  }
}

const operators = { eq: "=", gt: ">", gte: ">=", lt: "<", lte: "<=" } as const

/** A searched collection's words table (migration 0011) and the placeholder of the workspace. */
export interface SearchIndex {
  readonly words: string
  readonly workspace: string
}

/**
 * An array of ids holding every document that `where` can match by its top-level `Search` terms
 * (those every matching document must satisfy), read from the words table by index: the ids of
 * the term whose word range holds the fewest rows, at most `cap + 1` of them, so an array longer
 * than `cap` is cut and says only "many". Null when no such term can be looked up by range.
 */
export const searchCandidates = (where: Expr, search: SearchIndex, params: Params, cap: number): string | null => {
  const ranges = requiredTerms(where).flatMap((term) => {
    const range = wordRange(term)
    return range === null ? [] : [range]
  })
  const [only] = ranges
  if (only === undefined) return null
  const inRange = (from: string, below: string) =>
    `${search.words} WHERE workspace_id = ${search.workspace} AND word >= ${from} AND word < ${below}`
  if (ranges.length === 1) {
    return `ARRAY(SELECT id FROM ${inRange(`${params.add(only.from)}::text`, `${params.add(only.below)}::text`)} LIMIT ${cap + 1})`
  }
  // Each range is counted up to the cap, which stays cheap however common its words are.
  const from = params.add(ranges.map((r) => r.from))
  const below = params.add(ranges.map((r) => r.below))
  return (
    `ARRAY(SELECT c.id FROM (SELECT r.lo, r.hi FROM unnest(${from}::text[], ${below}::text[]) WITH ORDINALITY AS r(lo, hi, n) ` +
    `ORDER BY (SELECT count(*) FROM (SELECT FROM ${inRange("r.lo", "r.hi")} LIMIT ${cap + 1}) AS s), r.n LIMIT 1) AS r ` +
    `CROSS JOIN LATERAL (SELECT id FROM ${inRange("r.lo", "r.hi")} LIMIT ${cap + 1}) AS c)`
  )
}

const requiredTerms = (expr: Expr): ReadonlyArray<string> =>
  expr._tag === "Search" ? expr.terms : expr._tag === "And" ? expr.exprs.flatMap(requiredTerms) : []

/**
 * The words a term is a prefix of, as a range of the words table's keys in code-point order (the
 * byte order of UTF-8 under COLLATE "C"): from the term to the least string above every string it
 * begins. The term as the server receives it (the driver encodes a lone surrogate as U+FFFD) and
 * cut as the stored words are. Null for a term no range can serve: the empty term (a prefix of
 * every word) and a term of U+10FFFF only (no string lies above all it begins).
 */
const wordRange = (term: string): { readonly from: string; readonly below: string } | null => {
  const points = Array.from(term.replace(/\p{Cs}/gu, "\uFFFD"))
    .slice(0, searchWordLength)
    .map((c) => c.codePointAt(0)!)
  const from = String.fromCodePoint(...points)
  while (points.length > 0 && points[points.length - 1] === 0x10ffff) points.pop()
  if (points.length === 0) return null
  const last = points[points.length - 1]! + 1
  points[points.length - 1] = last === 0xd800 ? 0xe000 : last
  return { from, below: String.fromCodePoint(...points) }
}
