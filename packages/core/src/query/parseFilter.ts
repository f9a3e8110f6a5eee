import { Result } from "effect"
import { type ErrorDetail, ValidationError } from "../errors.js"
import { isJsonObject } from "../json.js"
import type { Expr, FieldRef } from "./ast.js"
import { allOf, always, anyOf, not } from "./exprs.js"
import type { FieldCatalog, FieldInfo } from "./fields.js"
import { isStorableText } from "../storableText.js"
import { orderedTypes, scalarOperand, textTypes, UNSTORABLE } from "./operands.js"

/** Bounds on the work one `filter` can ask for. */
export const filterLimits = { textLength: 8192, depth: 10, clauses: 200, inValues: 100 } as const

// A clause is one `field: value`, one `$op: operand` of an operator object, or one $and/$or/$not.
interface Walk {
  readonly catalog: FieldCatalog
  readonly errors: Array<ErrorDetail>
  clauses: number
}

const fail = (walk: Walk, path: string, message: string): Expr => {
  walk.errors.push({ path, message })
  return always
}

const countClause = (walk: Walk): void => {
  walk.clauses += 1
  if (walk.clauses === filterLimits.clauses + 1) {
    walk.errors.push({ path: "filter", message: `has more than ${filterLimits.clauses} clauses` })
  }
}

/**
 * The `filter` query parameter (JSON text) as an expression over the catalog's filterable fields.
 * Every problem found is reported, each at the path of the offending part (`filter.$or[1].industry`).
 */
export const parseFilter = (text: string, catalog: FieldCatalog): Result.Result<Expr, ValidationError> => {
  if (text.length > filterLimits.textLength) {
    return Result.fail(ValidationError.at("filter", `is longer than ${filterLimits.textLength} characters`))
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Result.fail(ValidationError.at("filter", "is not valid JSON"))
  }
  const walk: Walk = { catalog, errors: [], clauses: 0 }
  const expr = filterObject(walk, json, "filter", 1)
  return walk.errors.length === 0 ? Result.succeed(expr) : Result.fail(ValidationError.of(walk.errors))
}

const filterObject = (walk: Walk, raw: unknown, path: string, depth: number): Expr => {
  if (depth > filterLimits.depth) return fail(walk, path, `nests deeper than ${filterLimits.depth} levels`)
  if (!isJsonObject(raw)) return fail(walk, path, "must be a JSON object")
  return allOf(Object.entries(raw).map(([key, value]) => clause(walk, key, value, `${path}.${key}`, depth)))
}

const clause = (walk: Walk, key: string, value: unknown, path: string, depth: number): Expr => {
  switch (key) {
    case "$and":
    case "$or": {
      countClause(walk)
      if (!Array.isArray(value) || value.length === 0) return fail(walk, path, "must be a non-empty array of filters")
      const members = value.map((member, i) => filterObject(walk, member, `${path}[${i}]`, depth + 1))
      return key === "$and" ? allOf(members) : anyOf(members)
    }
    case "$not":
      countClause(walk)
      return not(filterObject(walk, value, path, depth + 1))
  }
  if (key.startsWith("$")) return fail(walk, path, "is not a known operator here (use $and, $or, $not or a field)")
  const info = walk.catalog.get(key)
  if (info === undefined) return fail(walk, path, "is not a known field")
  if (!info.filterable || info.type === "id_array") return fail(walk, path, "cannot be filtered on")
  if (isJsonObject(value)) {
    const ops = Object.entries(value)
    if (ops.length === 0) return fail(walk, path, "must hold at least one operator")
    return allOf(ops.map(([op, operand]) => fieldOp(walk, info, op, operand, `${path}.${op}`)))
  }
  if (Array.isArray(value)) {
    countClause(walk)
    return fail(walk, path, "must be a single value or an object of operators (use $in for a list)")
  }
  return fieldOp(walk, info, "$eq", value, path)
}

const fieldOp = (walk: Walk, info: FieldInfo, op: string, operand: unknown, path: string): Expr => {
  countClause(walk)
  const field: FieldRef = { name: info.name, type: info.type }
  const scalar = (raw: unknown, at: string, build: (value: string | number | boolean) => Expr): Expr =>
    Result.match(scalarOperand(info, raw), { onFailure: (message) => fail(walk, at, message), onSuccess: build })
  switch (op) {
    case "$eq":
      return operand === null
        ? not({ _tag: "Exists", field })
        : scalar(operand, path, (value) => ({ _tag: "Compare", field, op: "eq", value }))
    case "$ne":
      return operand === null ? { _tag: "Exists", field } : scalar(operand, path, (value) => ({ _tag: "Compare", field, op: "ne", value }))
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte": {
      if (!orderedTypes.includes(info.type)) return fail(walk, path, `cannot be used on a ${info.type} field`)
      const compareOp = op.slice(1) as "gt" | "gte" | "lt" | "lte"
      return scalar(operand, path, (value) => ({ _tag: "Compare", field, op: compareOp, value }))
    }
    case "$in":
    case "$nin": {
      if (!Array.isArray(operand) || operand.length === 0) return fail(walk, path, "must be a non-empty array")
      if (operand.length > filterLimits.inValues) {
        return fail(walk, path, `must hold at most ${filterLimits.inValues} values`)
      }
      const values: Array<string | number | boolean> = []
      operand.forEach((raw, i) => {
        Result.match(scalarOperand(info, raw), {
          onFailure: (message) => fail(walk, `${path}[${i}]`, message),
          onSuccess: (value) => values.push(value)
        })
      })
      const inExpr: Expr = { _tag: "In", field, values }
      return op === "$in" ? inExpr : not(inExpr)
    }
    case "$contains":
    case "$starts_with": {
      if (!textTypes.includes(info.type)) return fail(walk, path, `cannot be used on a ${info.type} field`)
      if (typeof operand !== "string") return fail(walk, path, "must be a string")
      if (!isStorableText(operand)) return fail(walk, path, UNSTORABLE)
      return { _tag: op === "$contains" ? "Contains" : "StartsWith", field, value: operand }
    }
    case "$exists":
      if (typeof operand !== "boolean") return fail(walk, path, "must be true or false")
      return operand ? { _tag: "Exists", field } : not({ _tag: "Exists", field })
    default:
      return fail(walk, path, "is not a known operator")
  }
}
