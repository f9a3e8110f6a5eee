import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { DEFAULT_RETRY_SCHEDULE, parseDuration, parseRetrySchedule } from "./schedule.js"

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["15s", 15_000],
    ["5m", 300_000],
    ["2h", 7_200_000],
    ["1d", 86_400_000],
    [" 30m ", 1_800_000],
    ["365d", 365 * 86_400_000]
  ])("reads %j as %i ms", (text, millis) => {
    expect(parseDuration(text)).toEqual(Result.succeed(millis))
  })

  it.each([["0s"], ["15"], ["s"], ["1.5s"], ["-5s"], ["5 s"], ["5S"], ["5w"], [""], ["366d"]])("refuses %j", (text) => {
    expect(Result.isFailure(parseDuration(text))).toBe(true)
  })
})

describe("parseRetrySchedule", () => {
  it("reads the default of API.md", () => {
    expect(parseRetrySchedule("5s,5m,30m,2h,5h,10h,10h")).toEqual(Result.succeed(DEFAULT_RETRY_SCHEDULE))
  })

  it("sums to about 27 hours over 8 attempts", () => {
    expect(DEFAULT_RETRY_SCHEDULE).toHaveLength(7)
    const hours = DEFAULT_RETRY_SCHEDULE.reduce((a, b) => a + b, 0) / 3_600_000
    expect(hours).toBeGreaterThan(27)
    expect(hours).toBeLessThan(28)
  })

  it("accepts spaces around entries, one entry, and fifty", () => {
    expect(parseRetrySchedule("1s, 2s")).toEqual(Result.succeed([1_000, 2_000]))
    expect(parseRetrySchedule("100ms")).toEqual(Result.succeed([100]))
    expect(Result.map(parseRetrySchedule(Array(50).fill("1s").join(",")), (s) => s.length)).toEqual(Result.succeed(50))
  })

  it("names the offending entry", () => {
    expect(parseRetrySchedule("5s,0m,1h")).toEqual(Result.fail(`retry schedule entry 2: "0m" must be greater than zero`))
    expect(Result.isFailure(parseRetrySchedule("5s,,1h"))).toBe(true)
  })

  it("refuses an empty schedule and more than fifty entries", () => {
    expect(Result.isFailure(parseRetrySchedule(""))).toBe(true)
    expect(Result.isFailure(parseRetrySchedule(Array(51).fill("1s").join(",")))).toBe(true)
  })
})
