import { Result } from "effect"
import { ValidationError } from "../errors.js"

export const pageLimits = { default: 25, min: 1, max: 100 } as const

/**
 * The `limit` query parameter: plain digits within 1..100 (1..`max`, for the engine's own larger
 * pages: an export's); out of range is an error, never clamped.
 */
export const parseLimit = (raw: string | undefined, max: number = pageLimits.max): Result.Result<number, ValidationError> => {
  if (raw === undefined) return Result.succeed(pageLimits.default)
  const limit = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN
  return limit >= pageLimits.min && limit <= max
    ? Result.succeed(limit)
    : Result.fail(ValidationError.at("limit", `must be an integer from ${pageLimits.min} to ${max}`))
}
