import type { JsonObject } from "../json.js"
import type { Decimal } from "../money.js"
import { addAmount, moneyJson } from "./figureMath.js"
import type { FigureWindow, Interval } from "./params.js"
import { countOf, textOf } from "./rows.js"

/** At most this many periods in one forecast: ten years of months. */
export const MAX_PERIODS = 120

/** The period (`2027-01`, `2027-Q1`) of a month (`2027-01`). */
export const periodOf = (month: string, interval: Interval): string =>
  interval === "month" ? month : `${month.slice(0, 4)}-Q${Math.floor((Number(month.slice(5, 7)) - 1) / 3) + 1}`

const nextMonth = (month: string): string => {
  const year = Number(month.slice(0, 4))
  const next = Number(month.slice(5, 7)) + 1
  return next > 12 ? `${String(year + 1).padStart(4, "0")}-01` : `${month.slice(0, 4)}-${String(next).padStart(2, "0")}`
}

/** Every period the window `[from, to)` touches, in order. */
export const periodsOf = (window: FigureWindow, interval: Interval): ReadonlyArray<string> => {
  const last = new Date(window.toMs - 1).toISOString().slice(0, 7)
  const periods: Array<string> = []
  for (let month = window.from.slice(0, 7); month <= last; month = nextMonth(month)) {
    const period = periodOf(month, interval)
    if (periods.at(-1) !== period) periods.push(period)
  }
  return periods
}

interface Bucket {
  count: number
  readonly value: Map<string, Decimal>
  readonly weighted: Map<string, Decimal>
}

const bucket = (): Bucket => ({ count: 0, value: new Map(), weighted: new Map() })

const add = (into: Bucket, row: JsonObject) => {
  into.count += countOf(row, "count")
  addAmount(into.value, textOf(row, "currency"), textOf(row, "value"))
  addAmount(into.weighted, textOf(row, "currency"), textOf(row, "weighted"))
}

/**
 * `GET /v1/deals/forecast` from the Forecast rows (storage/figures.ts): every period of the window
 * with the open deals expected to close in it (count, value, weighted value) and the won deals
 * closed in it (count, value), and the open deals without an expected close date.
 */
export const forecastAnswer = (window: FigureWindow, interval: Interval, rows: ReadonlyArray<JsonObject>): JsonObject => {
  const periods = periodsOf(window, interval)
  const open = new Map(periods.map((period) => [period, bucket()]))
  const won = new Map(periods.map((period) => [period, bucket()]))
  const unscheduled = bucket()
  for (const row of rows) {
    const month = textOf(row, "month")
    const status = textOf(row, "status")
    if (status === "open" && month === null) add(unscheduled, row)
    else if (month !== null) {
      const into = (status === "open" ? open : won).get(periodOf(month, interval))
      if (into !== undefined) add(into, row)
    }
  }
  return {
    interval,
    buckets: periods.map((period) => {
      const o = open.get(period)!
      const w = won.get(period)!
      return {
        period,
        open: { count: o.count, value: moneyJson(o.value), weighted_value: moneyJson(o.weighted) },
        won: { count: w.count, value: moneyJson(w.value) }
      }
    }),
    unscheduled: { count: unscheduled.count, value: moneyJson(unscheduled.value), weighted_value: moneyJson(unscheduled.weighted) }
  }
}
