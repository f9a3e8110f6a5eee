import { Result } from "effect"
import { type ErrorDetail, ValidationError } from "../errors.js"
import { dealStatuses } from "../field/dealFields.js"
import type { Expr, FieldRef, FieldType } from "./ast.js"
import { isCalendarDate } from "./calendar.js"
import { allOf } from "./exprs.js"
import type { FieldCatalog } from "./fields.js"
import type { ListParams } from "./parseListQuery.js"

/** The deal list's own query parameters, besides limit, cursor, filter, search and sort. */
export const dealListParams: ReadonlyArray<string> = [
  "pipeline_id",
  "stage_id",
  "owner_id",
  "status",
  "contact_id",
  "company_id",
  "value_min",
  "value_max",
  "close_date_from",
  "close_date_to",
  "closed_from",
  "closed_to"
]

/** The first instant of the day after `date`, canonical. */
const dayAfter = (date: string): string => new Date(Date.parse(`${date}T00:00:00.000Z`) + 86_400_000).toISOString()

const decimal = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/

/**
 * The conditions the deal list parameters ask for: equality on ids and status, membership in
 * `contact_ids`, and inclusive ranges on `value`, `expected_close_date` and the days of `closed_at`
 * (a deal without a value or date falls outside every range). Whether a contact_id or company_id names a live record is the
 * engine's question (a record in the trash is on no deal as shown).
 */
export const dealParamsWhere = (params: ListParams, catalog: FieldCatalog): Result.Result<Expr, ValidationError> => {
  const errors: Array<ErrorDetail> = []
  const clauses: Array<Expr> = []
  const ref = (name: string, fallback: FieldType): FieldRef => ({ name, type: catalog.get(name)?.type ?? fallback })

  for (const name of ["pipeline_id", "stage_id", "owner_id", "company_id"] as const) {
    const raw = params[name]
    if (raw === undefined) continue
    if (raw === "") errors.push({ path: name, message: "must not be empty" })
    else clauses.push({ _tag: "Compare", field: ref(name, "id"), op: "eq", value: raw })
  }

  const status = params["status"]
  if (status !== undefined) {
    if ((dealStatuses as ReadonlyArray<string>).includes(status)) {
      clauses.push({ _tag: "Compare", field: ref("status", "enum"), op: "eq", value: status })
    } else {
      errors.push({ path: "status", message: `must be one of ${dealStatuses.join(", ")}` })
    }
  }

  const contactId = params["contact_id"]
  if (contactId !== undefined) {
    if (contactId === "") errors.push({ path: "contact_id", message: "must not be empty" })
    else clauses.push({ _tag: "HasElement", field: ref("contact_ids", "id_array"), value: contactId })
  }

  const range = <A extends string | number>(
    [fromName, toName]: readonly [string, string],
    field: FieldRef,
    read: (raw: string) => A | null,
    message: string
  ): void => {
    const bound = (name: string, op: "gte" | "lte"): A | null => {
      const raw = params[name]
      if (raw === undefined) return null
      const value = read(raw)
      if (value === null) errors.push({ path: name, message })
      else clauses.push({ _tag: "Compare", field, op, value })
      return value
    }
    const from = bound(fromName, "gte")
    const to = bound(toName, "lte")
    if (from !== null && to !== null && from > to) {
      errors.push({ path: toName, message: `must not be less than ${fromName}` })
    }
  }
  range(
    ["value_min", "value_max"],
    ref("value", "number"),
    (raw) => (decimal.test(raw) && Number.isFinite(Number(raw)) ? Number(raw) : null),
    "must be a number"
  )
  range(
    ["close_date_from", "close_date_to"],
    ref("expected_close_date", "date"),
    (raw) => (isCalendarDate(raw) ? raw : null),
    "must be a date written YYYY-MM-DD"
  )

  // closed_at is an instant: a range of days takes from the start of the first to the end of the last, in UTC.
  const closedFrom = params["closed_from"]
  const closedTo = params["closed_to"]
  const closedAt = ref("closed_at", "timestamp")
  const day = (name: string, raw: string | undefined): string | null => {
    if (raw === undefined) return null
    if (!isCalendarDate(raw)) errors.push({ path: name, message: "must be a date written YYYY-MM-DD" })
    return isCalendarDate(raw) ? raw : null
  }
  const first = day("closed_from", closedFrom)
  const last = day("closed_to", closedTo)
  if (first !== null) clauses.push({ _tag: "Compare", field: closedAt, op: "gte", value: `${first}T00:00:00.000Z` })
  // The last day there is has no day after it: every instant of it is before the end.
  if (last !== null && last < "9999-12-31") clauses.push({ _tag: "Compare", field: closedAt, op: "lt", value: dayAfter(last) })
  if (first !== null && last !== null && first > last) errors.push({ path: "closed_to", message: "must not be less than closed_from" })

  return errors.length === 0 ? Result.succeed(allOf(clauses)) : Result.fail(ValidationError.of(errors))
}
