import { builtInRecordTypes, type RecordTypeSet } from "../record/recordTypeSet.js"
import { Result } from "effect"
import { ValidationError } from "../errors.js"
import type { ListParams } from "../query/parseListQuery.js"
import { parseFeedTypes } from "./eventTypes.js"

export const feedLimits = { default: 100, max: 1000 } as const
/** The longest a read may wait for an event (`wait`, in seconds). */
export const FEED_MAX_WAIT_SECONDS = 30

export interface FeedParams {
  /** The cursor to read after, as given (decoded against the workspace by the engine); null: from the start. */
  readonly after: string | null
  readonly types: ReadonlyArray<string>
  readonly limit: number
  readonly waitMillis: number
}

const KNOWN = ["after", "types", "limit", "wait"]

const integerIn = (
  raw: string | undefined,
  path: string,
  min: number,
  max: number,
  fallback: number
): Result.Result<number, ValidationError> => {
  if (raw === undefined) return Result.succeed(fallback)
  const value = /^[0-9]{1,7}$/.test(raw) ? Number(raw) : Number.NaN
  return value >= min && value <= max
    ? Result.succeed(value)
    : Result.fail(ValidationError.at(path, `must be an integer from ${min} to ${max}`))
}

/** GET /v1/events' query: `after`, `types`, `limit` (1–1000, 100 by default), `wait` (0–30 s, 0 by default). */
export const parseFeedParams = (
  params: ListParams,
  known: RecordTypeSet = builtInRecordTypes
): Result.Result<FeedParams, ValidationError> => {
  const unknown = Object.keys(params).filter((key) => !KNOWN.includes(key))
  if (unknown.length > 0) return Result.fail(ValidationError.of(unknown.map((path) => ({ path, message: "is not a known parameter" }))))
  const types = parseFeedTypes(params["types"] ?? null, known)
  if (Result.isFailure(types)) return Result.fail(types.failure)
  const limit = integerIn(params["limit"], "limit", 1, feedLimits.max, feedLimits.default)
  if (Result.isFailure(limit)) return Result.fail(limit.failure)
  const wait = integerIn(params["wait"], "wait", 0, FEED_MAX_WAIT_SECONDS, 0)
  if (Result.isFailure(wait)) return Result.fail(wait.failure)
  const after = params["after"]
  return Result.succeed({
    after: after === undefined || after === "" ? null : after,
    types: types.success,
    limit: limit.success,
    waitMillis: wait.success * 1000
  })
}
