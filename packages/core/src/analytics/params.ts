import { Result } from "effect"
import { type ErrorDetail, ValidationError } from "../errors.js"
import { isCalendarDate, normaliseTimestamp } from "../query/calendar.js"
import type { ListParams } from "../query/parseListQuery.js"

/**
 * The query parameters of the figures (API.md, "Pipeline analytics"): each endpoint's own names (any
 * other is 400 at its name, as on lists), every value checked, every problem reported at once.
 */

/** A window of UTC dates, `[from, to)`, and the same in epoch milliseconds. */
export interface FigureWindow {
  readonly from: string
  readonly to: string
  readonly fromMs: number
  readonly toMs: number
}

export type Interval = "month" | "quarter"
export const intervals: ReadonlyArray<Interval> = ["month", "quarter"]

/** What a figures request may name; each parser reads the ones it takes. */
export interface FigureParams {
  readonly ownerId: string | null
  readonly asOf: string | null
  readonly window: FigureWindow | null
  readonly interval: Interval
  readonly pipelineId: string | null
}

const dayMillis = (date: string): number => Date.parse(`${date}T00:00:00.000Z`)

/** Reads `names` of `params` (refusing any other), `window` ones required when asked for. */
export const parseFigureParams = (
  params: ListParams,
  names: ReadonlyArray<"owner_id" | "as_of" | "from" | "to" | "interval" | "pipeline_id">
): Result.Result<FigureParams, ValidationError> => {
  const details: Array<ErrorDetail> = []
  for (const key of Object.keys(params)) {
    if (!(names as ReadonlyArray<string>).includes(key)) details.push({ path: key, message: "is not a known parameter" })
  }
  const nonEmpty = (name: string): string | null => {
    const raw = params[name]
    if (raw === undefined) return null
    if (raw === "") details.push({ path: name, message: "must not be empty" })
    return raw === "" ? null : raw
  }
  const asOfRaw = params["as_of"]
  const asOf = asOfRaw === undefined ? null : normaliseTimestamp(asOfRaw)
  if (asOfRaw !== undefined && asOf === null) details.push({ path: "as_of", message: "must be an ISO 8601 timestamp with a time zone" })
  const date = (name: "from" | "to"): string | null => {
    const raw = params[name]
    if (raw === undefined) {
      if (names.includes(name)) details.push({ path: name, message: "is required (a date YYYY-MM-DD)" })
      return null
    }
    if (!isCalendarDate(raw)) details.push({ path: name, message: "must be a date written YYYY-MM-DD" })
    return isCalendarDate(raw) ? raw : null
  }
  const from = date("from")
  const to = date("to")
  if (from !== null && to !== null && to <= from) details.push({ path: "to", message: "must be after from (the window is [from, to))" })
  const interval = params["interval"] ?? "month"
  if (!(intervals as ReadonlyArray<string>).includes(interval)) details.push({ path: "interval", message: "must be month or quarter" })
  const answer: FigureParams = {
    ownerId: nonEmpty("owner_id"),
    pipelineId: nonEmpty("pipeline_id"),
    asOf,
    window: from === null || to === null ? null : { from, to, fromMs: dayMillis(from), toMs: dayMillis(to) },
    interval: interval as Interval
  }
  return details.length === 0 ? Result.succeed(answer) : Result.fail(ValidationError.of(details))
}
