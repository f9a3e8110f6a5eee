import { Result } from "effect"

const UNIT_MILLIS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const DURATION = /^(\d+)(ms|s|m|h|d)$/
// Beyond a year a delay is a typo, and timers overflow long before Number does.
const DURATION_MAX = 365 * 86_400_000
export const RETRY_SCHEDULE_MAX_ENTRIES = 50

/** `"15s"`, `"500ms"`, `"2h"` in milliseconds; zero is refused, as no delay or timeout can be zero. */
export const parseDuration = (text: string): Result.Result<number, string> => {
  const match = DURATION.exec(text.trim())
  const unit = match?.[2] === undefined ? undefined : UNIT_MILLIS[match[2]]
  if (match === null || unit === undefined) {
    return Result.fail(`"${text}" is not a duration such as 500ms, 15s, 5m, 2h or 1d`)
  }
  const millis = Number(match[1]) * unit
  if (millis === 0) return Result.fail(`"${text}" must be greater than zero`)
  if (millis > DURATION_MAX) return Result.fail(`"${text}" must be at most 365d`)
  return Result.succeed(millis)
}

/** `"5s,5m,30m,2h,5h,10h,10h"`: the delays before retry 1, 2, …, in milliseconds. */
export const parseRetrySchedule = (text: string): Result.Result<ReadonlyArray<number>, string> => {
  const entries = text.split(",")
  if (entries.length > RETRY_SCHEDULE_MAX_ENTRIES) {
    return Result.fail(`a retry schedule has at most ${RETRY_SCHEDULE_MAX_ENTRIES} entries`)
  }
  const delays: Array<number> = []
  for (const [i, entry] of entries.entries()) {
    const parsed = parseDuration(entry)
    if (Result.isFailure(parsed)) return Result.fail(`retry schedule entry ${i + 1}: ${parsed.failure}`)
    delays.push(parsed.success)
  }
  return Result.succeed(delays)
}

/** API.md's default: 5s, 5m, 30m, 2h, 5h, 10h, 10h — 8 attempts over about 27 hours. */
export const DEFAULT_RETRY_SCHEDULE: ReadonlyArray<number> = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]

/** API.md's default `DEALSTREAM_WEBHOOK_TIMEOUT`. */
export const DEFAULT_DELIVERY_TIMEOUT = 15_000
