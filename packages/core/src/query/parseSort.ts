import { Result } from "effect"
import { ValidationError } from "../errors.js"
import type { SortSpec } from "./ast.js"
import type { FieldCatalog } from "./fields.js"

const sortableNames = (catalog: FieldCatalog): string =>
  [...catalog.values()]
    .filter((info) => info.sortable)
    .map((info) => info.name)
    .join(", ")

/** `sort=field` ascending, `sort=-field` descending; absent gives `fallback`. */
export const parseSort = (raw: string | undefined, catalog: FieldCatalog, fallback: SortSpec): Result.Result<SortSpec, ValidationError> => {
  if (raw === undefined) return Result.succeed(fallback)
  const descending = raw.startsWith("-")
  const name = descending ? raw.slice(1) : raw
  const info = catalog.get(name)
  if (info === undefined || !info.sortable) {
    const what = info === undefined ? "is not a known field" : "cannot be sorted by"
    return Result.fail(ValidationError.at("sort", `${JSON.stringify(name)} ${what}; sortable fields: ${sortableNames(catalog)}`))
  }
  const field =
    info.derived === undefined ? { name: info.name, type: info.type } : { name: info.name, type: info.type, derived: info.derived }
  return Result.succeed({ field, direction: descending ? "desc" : "asc" })
}
