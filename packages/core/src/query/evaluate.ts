import type { JsonObject } from "../json.js"
import type { Expr, Scalar } from "./ast.js"
import { elementsOf, scalarOf } from "./fieldValue.js"
import { searchWordsOfDocument } from "./documentSearchWords.js"
import { compareScalars } from "./sortKeys.js"

type CompareOp = Extract<Expr, { _tag: "Compare" }>["op"]

// A stored value and an operand of different JSON types (only a hand-built AST has them) are
// unequal and unordered: every op but `ne` is false, as a typed SQL comparison finds no row.
const compare = (value: Scalar, op: CompareOp, operand: Scalar): boolean => {
  if (typeof value !== typeof operand) return op === "ne"
  const order = compareScalars(value, operand)
  switch (op) {
    case "eq":
      return order === 0
    case "ne":
      return order !== 0
    case "gt":
      return order > 0
    case "gte":
      return order >= 0
    case "lt":
      return order < 0
    case "lte":
      return order <= 0
  }
}

/**
 * Whether a document satisfies an expression, in two-valued logic (see ast.ts): a field is absent
 * when `scalarOf` says so, every test of an absent field is false except `ne`, and Not is plain
 * negation. Text comparisons are by code point; Contains, StartsWith and Search compare
 * `toLowerCase()` forms, so SQL must use a `lower()` with the same Unicode case mapping.
 */
export const evaluate = (expr: Expr, data: JsonObject): boolean => {
  switch (expr._tag) {
    case "True":
      return true
    case "And":
      return expr.exprs.every((e) => evaluate(e, data))
    case "Or":
      return expr.exprs.some((e) => evaluate(e, data))
    case "Not":
      return !evaluate(expr.expr, data)
    case "Compare": {
      const value = scalarOf(data, expr.field)
      return value === null ? expr.op === "ne" : compare(value, expr.op, expr.value)
    }
    case "In": {
      const value = scalarOf(data, expr.field)
      return value !== null && expr.values.some((operand) => compare(value, "eq", operand))
    }
    case "Exists":
      return expr.field.type === "id_array" ? elementsOf(data, expr.field) !== null : scalarOf(data, expr.field) !== null
    case "Contains": {
      const value = scalarOf(data, expr.field)
      return typeof value === "string" && value.toLowerCase().includes(expr.value.toLowerCase())
    }
    case "StartsWith": {
      const value = scalarOf(data, expr.field)
      return typeof value === "string" && value.toLowerCase().startsWith(expr.value.toLowerCase())
    }
    case "HasElement":
      return elementsOf(data, expr.field)?.includes(expr.value) ?? false
    case "Search":
      return matchesSearch(expr, data)
  }
}

const matchesSearch = (expr: Extract<Expr, { _tag: "Search" }>, data: JsonObject): boolean => {
  const words = searchWordsOfDocument(data, expr)
  return expr.terms.every((term) => words.some((word) => word.startsWith(term)))
}
