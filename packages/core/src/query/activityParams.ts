import { Result } from "effect"
import { type ErrorDetail, ValidationError } from "../errors.js"
import { activityTypes } from "../field/activityFields.js"
import type { Expr, FieldRef, FieldType } from "./ast.js"
import { allOf, not } from "./exprs.js"
import type { FieldCatalog } from "./fields.js"
import type { ListParams } from "./parseListQuery.js"

/** The parameters naming a linked record, and the link list each looks in. */
export const activityLinkParams = { contact_id: "contact_ids", deal_id: "deal_ids", company_id: "company_ids" } as const

/** The activity list's own query parameters, besides limit, cursor, filter and sort. */
export const activityListParams: ReadonlyArray<string> = ["type", ...Object.keys(activityLinkParams), "owner_id", "done"]

/**
 * The conditions the activity list parameters ask for: the type, membership in a link list, the
 * owner, and done (done_at set) or open. Whether a named record is live is the engine's question.
 */
export const activityParamsWhere = (params: ListParams, catalog: FieldCatalog): Result.Result<Expr, ValidationError> => {
  const errors: Array<ErrorDetail> = []
  const clauses: Array<Expr> = []
  const ref = (name: string, fallback: FieldType): FieldRef => ({ name, type: catalog.get(name)?.type ?? fallback })

  const type = params["type"]
  if (type !== undefined) {
    if ((activityTypes as ReadonlyArray<string>).includes(type)) {
      clauses.push({ _tag: "Compare", field: ref("type", "enum"), op: "eq", value: type })
    } else {
      errors.push({ path: "type", message: `must be one of ${activityTypes.join(", ")}` })
    }
  }

  for (const [name, link] of Object.entries(activityLinkParams)) {
    const id = params[name]
    if (id === undefined) continue
    if (id === "") errors.push({ path: name, message: "must not be empty" })
    else clauses.push({ _tag: "HasElement", field: ref(link, "id_array"), value: id })
  }

  const owner = params["owner_id"]
  if (owner === "") errors.push({ path: "owner_id", message: "must not be empty" })
  else if (owner !== undefined) clauses.push({ _tag: "Compare", field: ref("owner_id", "id"), op: "eq", value: owner })

  const done = params["done"]
  if (done !== undefined) {
    const isDone: Expr = { _tag: "Exists", field: ref("done_at", "timestamp") }
    if (done === "true") clauses.push(isDone)
    else if (done === "false") clauses.push(not(isDone))
    else errors.push({ path: "done", message: "must be true or false" })
  }

  return errors.length === 0 ? Result.succeed(allOf(clauses)) : Result.fail(ValidationError.of(errors))
}
