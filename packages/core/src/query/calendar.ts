/**
 * Dates and timestamps as the query language accepts them. Stored values are canonical
 * (`YYYY-MM-DD`, and `new Date(x).toISOString()` for timestamps), so comparing them as strings
 * orders them in time; operands are brought to the same form before they enter the AST.
 */

export const canonicalDate = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/
export const canonicalTimestamp = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/

const rfc3339 =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))$/

// setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
const utcMillis = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): Date => {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, ms)
  return date
}

const isRealDay = (year: number, month: number, day: number): boolean => {
  const date = utcMillis(year, month, day)
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** `YYYY-MM-DD` naming a day that exists (no February 30th). */
export const isCalendarDate = (text: string): boolean => {
  if (!canonicalDate.test(text)) return false
  const [year, month, day] = text.split("-").map(Number)
  return year !== undefined && month !== undefined && day !== undefined && isRealDay(year, month, day)
}

/**
 * An RFC 3339 timestamp in the canonical UTC form `2026-01-01T00:00:00.000Z`, or null when the
 * text is not one. Digits beyond milliseconds are cut off, as stored timestamps have none. Leap
 * seconds (`:60`) are refused because `Date` cannot represent them, and so are instants whose UTC
 * form would leave the years 0000–9999.
 */
export const normaliseTimestamp = (text: string): string | null => {
  const match = rfc3339.exec(text)
  if (match === null) return null
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offsetHours, offsetMinutes] = match
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  if (!isRealDay(year, month, day) || hour > 23 || minute > 59 || second > 59) return null
  const ms = Number((fraction ?? "").padEnd(3, "0").slice(0, 3))
  let offset = 0
  if (zulu === undefined) {
    const oh = Number(offsetHours)
    const om = Number(offsetMinutes)
    if (oh > 23 || om > 59) return null
    offset = (sign === "-" ? -1 : 1) * (oh * 60 + om)
  }
  const instant = utcMillis(year, month, day, hour, minute, second, ms).getTime() - offset * 60_000
  const canonical = new Date(instant).toISOString()
  return canonicalTimestamp.test(canonical) ? canonical : null
}
