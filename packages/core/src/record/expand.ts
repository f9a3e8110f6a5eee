import { Result } from "effect"
import { ValidationError } from "../errors.js"

/**
 * An `expand` parameter: some of `allowed`, comma-separated, in any order, with spaces; absent or
 * blank is none; anything else is 400 at `expand`.
 */
export const parseExpansions = <A extends string>(
  raw: string | null,
  allowed: ReadonlyArray<A>
): Result.Result<ReadonlySet<A>, ValidationError> => {
  const wanted = new Set<A>()
  if (raw === null || raw.trim() === "") return Result.succeed(wanted)
  for (const part of raw.split(",")) {
    const value = part.trim()
    if (!(allowed as ReadonlyArray<string>).includes(value)) {
      return Result.fail(ValidationError.at("expand", `has an unknown value ${JSON.stringify(value)}; use ${allowed.join(", ")}`))
    }
    wanted.add(value as A)
  }
  return Result.succeed(wanted)
}
