import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { boolean, date, finiteNumber, id, isCalendarDate, nullable, oneOf, text, trimmedText } from "./checks.js"

describe("field checks", () => {
  it("knows the calendar", () => {
    expect(["2000-02-29", "2026-12-31", "0001-01-01"].every(isCalendarDate)).toBe(true)
    expect(["1900-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "0000-01-01", "2026-01-01T00:00:00Z"].some(isCalendarDate)).toBe(false)
    expect(date("2024-02-29")).toEqual(Result.succeed("2024-02-29"))
    expect(date("2023-02-29")).toEqual(Result.fail("must be a date YYYY-MM-DD"))
  })

  it("says what a value must be, in the words the error details use", () => {
    expect(text(3)(3)).toEqual(Result.fail("must be a string"))
    expect(text(3)("abcd")).toEqual(Result.fail("must be at most 3 characters"))
    expect(text(3)(" ab")).toEqual(Result.succeed(" ab"))
    expect(trimmedText(1, 3)("   ")).toEqual(Result.fail("must not be empty"))
    expect(trimmedText(2, 3)(" a ")).toEqual(Result.fail("must be at least 2 characters"))
    expect(trimmedText(1, 3)(" abc ")).toEqual(Result.succeed("abc"))
    expect(id(5)("")).toEqual(Result.fail("must be a non-empty string"))
    expect(id(5)("abcdef")).toEqual(Result.fail("must be a non-empty string"))
    expect(id(5)("pipe1")).toEqual(Result.succeed("pipe1"))
    expect(finiteNumber(Infinity)).toEqual(Result.fail("must be a number"))
    expect(finiteNumber(-0.5)).toEqual(Result.succeed(-0.5))
    expect(boolean("true")).toEqual(Result.fail("must be a boolean"))
    expect(oneOf(["open", "won"])("lost")).toEqual(Result.fail("must be one of open, won"))
  })

  it("lets null through only where nullable says so", () => {
    expect(Result.isFailure(text(3)(null))).toBe(true)
    expect(nullable(text(3))(null)).toEqual(Result.succeed(null))
    expect(nullable(text(3))(4)).toEqual(Result.fail("must be a string"))
  })
})
