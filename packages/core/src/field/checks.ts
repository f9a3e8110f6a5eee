import { Result } from "effect"
import type { Json } from "../json.js"

/**
 * Checks one value of a request body. The failure is the message of that key's error detail, so a
 * parser can report every offending key at once instead of stopping at the first.
 */
export type FieldCheck = (value: unknown) => Result.Result<Json, string>

export const text =
  (max: number): FieldCheck =>
  (value) =>
    typeof value !== "string"
      ? Result.fail("must be a string")
      : value.length > max
        ? Result.fail(`must be at most ${max} characters`)
        : Result.succeed(value)

/** Surrounding whitespace is dropped: a name of only spaces is as empty as no name. */
export const trimmedText =
  (min: number, max: number): FieldCheck =>
  (value) => {
    if (typeof value !== "string") return Result.fail("must be a string")
    const trimmed = value.trim()
    if (trimmed.length < min) return Result.fail(min === 1 ? "must not be empty" : `must be at least ${min} characters`)
    if (trimmed.length > max) return Result.fail(`must be at most ${max} characters`)
    return Result.succeed(trimmed)
  }

/** The id of another record, taken as given: whether it names one is the engine's question. */
export const id =
  (max: number): FieldCheck =>
  (value) =>
    typeof value === "string" && value.length > 0 && value.length <= max ? Result.succeed(value) : Result.fail("must be a non-empty string")

export const nullable =
  (check: FieldCheck): FieldCheck =>
  (value) =>
    value === null ? Result.succeed(null) : check(value)

export const finiteNumber: FieldCheck = (value) =>
  typeof value === "number" && Number.isFinite(value) ? Result.succeed(value) : Result.fail("must be a number")

export const boolean: FieldCheck = (value) => (typeof value === "boolean" ? Result.succeed(value) : Result.fail("must be a boolean"))

export const oneOf =
  (options: ReadonlyArray<string>): FieldCheck =>
  (value) =>
    typeof value === "string" && options.includes(value) ? Result.succeed(value) : Result.fail(`must be one of ${options.join(", ")}`)

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

const daysInMonth = (year: number, month: number): number => {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0
}

/** A real calendar day: `2026-02-30` matches the pattern but is refused. */
export const isCalendarDate = (value: string): boolean => {
  const match = DATE.exec(value)
  if (match === null) return false
  const year = Number(match[1])
  const month = Number(match[2])
  const day = Number(match[3])
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
}

export const date: FieldCheck = (value) =>
  typeof value === "string" && isCalendarDate(value) ? Result.succeed(value) : Result.fail("must be a date YYYY-MM-DD")

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/

/**
 * An instant with its offset (RFC 3339), stored as the canonical UTC form the API answers with
 * (`2026-01-02T03:04:05.000Z`), so stored values sort and compare as text.
 */
export const timestamp: FieldCheck = (value) => {
  if (typeof value !== "string" || !TIMESTAMP.test(value)) {
    return Result.fail("must be a timestamp with an offset, e.g. 2026-01-02T15:04:05Z")
  }
  const millis = Date.parse(value)
  return Number.isNaN(millis) || !isCalendarDate(value.slice(0, 10))
    ? Result.fail("must be a real instant")
    : Result.succeed(new Date(millis).toISOString())
}

/** An integer of at least `min`. */
export const integerFrom =
  (min: number): FieldCheck =>
  (value) =>
    typeof value === "number" && Number.isSafeInteger(value) && value >= min
      ? Result.succeed(value)
      : Result.fail(`must be an integer of at least ${min}`)

/**
 * A list of other records' ids (`noun`: "contact"), at most `max`: element problems are reported for
 * the whole key; repeats are dropped, the first occurrence kept. Whether they name live records is
 * the engine's question.
 */
export const idList =
  (noun: string, max: number, itemMax: number): FieldCheck =>
  (value) => {
    if (!Array.isArray(value)) return Result.fail(`must be an array of ${noun} ids`)
    const bad = value.findIndex((item) => typeof item !== "string" || item.length === 0 || item.length > itemMax)
    if (bad >= 0) return Result.fail(`must hold only ${noun} ids (element ${bad} is not one)`)
    const unique = [...new Set(value as ReadonlyArray<string>)]
    return unique.length > max ? Result.fail(`must hold at most ${max} ${noun} ids`) : Result.succeed(unique)
  }
