import type { Expr } from "./ast.js"

export const always: Expr = { _tag: "True" }

/** All of `exprs`: True members dropped, nested Ands flattened, a single member unwrapped. */
export const allOf = (exprs: ReadonlyArray<Expr>): Expr => {
  const members = exprs.flatMap((e) => (e._tag === "True" ? [] : e._tag === "And" ? e.exprs : [e]))
  return members.length === 0 ? always : members.length === 1 ? members[0]! : { _tag: "And", exprs: members }
}

/** Any of `exprs` (at least one): True when one is True, a single member unwrapped. */
export const anyOf = (exprs: ReadonlyArray<Expr>): Expr => {
  if (exprs.some((e) => e._tag === "True")) return always
  const members = exprs.flatMap((e) => (e._tag === "Or" ? e.exprs : [e]))
  return members.length === 1 ? members[0]! : { _tag: "Or", exprs: members }
}

export const not = (expr: Expr): Expr => ({ _tag: "Not", expr })
