import { Result } from "effect"
import { type ErrorDetail, ValidationError } from "../errors.js"
import type { DocumentQuery, Expr, Position, SortSpec } from "./ast.js"
import { decodeCursor } from "./cursor.js"
import { allOf } from "./exprs.js"
import type { FieldCatalog } from "./fields.js"
import { queryFingerprint } from "./fingerprint.js"
import { parseFilter } from "./parseFilter.js"
import { parseLimit } from "./parseLimit.js"
import { parseSearch } from "./parseSearch.js"
import { parseSort } from "./parseSort.js"
import { scalarOf } from "./fieldValue.js"

/**
 * Raw query parameters as the client sent them (strings); core validates them and reports errors
 * with the parameter name as path (`limit`, `filter.$or[0].email`, `cursor`, `sort`).
 */
export type ListParams = Readonly<Record<string, string | undefined>>

/** What one list endpoint accepts. */
export interface ListSpec {
  readonly catalog: FieldCatalog
  readonly scope: "live" | "deleted"
  /** Conditions the endpoint adds itself (deal list parameters, trash type). */
  readonly baseWhere: Expr
  readonly defaultSort: SortSpec
  readonly allow: { readonly filter: boolean; readonly search: boolean; readonly sort: boolean }
  /** Further parameter names the endpoint handles itself; any other name is an error. */
  readonly extraParams: ReadonlyArray<string>
  /** The largest `limit` taken: pageLimits.max unless told (views/listPage.ts's ListPageMax). */
  readonly maxLimit?: number
}

const knownParams = (spec: ListSpec): ReadonlySet<string> =>
  new Set([
    "limit",
    "cursor",
    ...(spec.allow.filter ? ["filter"] : []),
    ...(spec.allow.search ? ["search"] : []),
    ...(spec.allow.sort ? ["sort"] : []),
    ...spec.extraParams
  ])

// A cursor's value must be one the sort field can hold, or storage would compare unlike types.
const fitsSort = (position: Position, sort: SortSpec): boolean =>
  position.value === null || scalarOf({ v: position.value }, { name: "v", type: sort.field.type }) !== null

/**
 * Validates a list request's parameters and turns them into a document query. Every parameter is
 * checked and all problems are reported together; the cursor is checked only once filter, search
 * and sort are valid, since it must match them.
 */
export const parseListQuery = (params: ListParams, spec: ListSpec): Result.Result<DocumentQuery, ValidationError> => {
  const errors: Array<ErrorDetail> = []
  const collect = <A>(result: Result.Result<A, ValidationError>): A | undefined =>
    Result.match(result, {
      onFailure: (error) => {
        errors.push(...error.details)
        return undefined
      },
      onSuccess: (value) => value
    })

  const known = knownParams(spec)
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && !known.has(name)) errors.push({ path: name, message: "is not a known parameter" })
  }
  const param = (name: string): string | undefined => (known.has(name) ? params[name] : undefined)

  const limit = collect(parseLimit(params["limit"], spec.maxLimit))
  const filterText = param("filter")
  const filter = filterText === undefined ? allOf([]) : collect(parseFilter(filterText, spec.catalog))
  const search = collect(parseSearch(param("search"), spec.catalog))
  const sort = collect(parseSort(param("sort"), spec.catalog, spec.defaultSort))
  if (limit === undefined || filter === undefined || search === undefined || sort === undefined) {
    return Result.fail(ValidationError.of(errors))
  }

  const where = allOf([spec.baseWhere, filter, ...(search === null ? [] : [search])])
  const cursorText = params["cursor"]
  let after: Position | null = null
  if (cursorText !== undefined) {
    const position = collect(decodeCursor(cursorText, queryFingerprint(where, sort, spec.scope)))
    if (position !== undefined && !fitsSort(position, sort)) {
      errors.push({ path: "cursor", message: "is not a valid cursor" })
    } else if (position !== undefined) {
      after = position
    }
  }
  return errors.length === 0 ? Result.succeed({ where, scope: spec.scope, sort, after, limit }) : Result.fail(ValidationError.of(errors))
}
