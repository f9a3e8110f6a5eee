import type { DeliveryFailure, DeliveryResult } from "./events.js"

/** What the wait before a retry depends on. */
export interface RetryWait {
  /** The scheduled delay before this retry. */
  readonly delay: number
  readonly jitter: number
  readonly statusCode: number | null
  readonly retryAfterSeconds: number | null
}

const JITTER = 0.2

const clamp = (value: number, min: number, max: number): number => Math.min(Math.max(value, min), max)

/**
 * The delay with ±20% jitter, so receivers that failed together are not retried together. A
 * `Retry-After` on 429 or 503 is honoured but clamped to [delay, 2·delay]: a receiver can slow us
 * down, not park a delivery forever. Whole milliseconds, rounded inside those bounds.
 */
export const retryWait = ({ delay, jitter, retryAfterSeconds, statusCode }: RetryWait): number => {
  const spread = delay * (1 + JITTER * clamp(Number.isNaN(jitter) ? 0 : jitter, -1, 1))
  const honoursRetryAfter = (statusCode === 429 || statusCode === 503) && retryAfterSeconds !== null && Number.isFinite(retryAfterSeconds)
  const [wait, min, max] = honoursRetryAfter
    ? [Math.max(spread, retryAfterSeconds * 1000), delay, 2 * delay]
    : [spread, delay * (1 - JITTER), delay * (1 + JITTER)]
  return clamp(Math.round(wait), Math.ceil(min), Math.floor(max))
}

export interface AttemptVerdict {
  readonly result: DeliveryResult
  readonly failure: DeliveryFailure | null
  /** Milliseconds after the attempt, when `result` is `retrying`. */
  readonly wait: number | null
}

export interface AttemptFacts {
  /** 1 for the first attempt. */
  readonly attemptNumber: number
  readonly statusCode: number | null
  readonly retryAfterSeconds: number | null
  readonly jitter: number
  readonly schedule: ReadonlyArray<number>
}

/** What one attempt means for its delivery: done, retried later, or failed for good. */
export const judgeAttempt = ({ attemptNumber, jitter, retryAfterSeconds, schedule, statusCode }: AttemptFacts): AttemptVerdict => {
  if (statusCode !== null && statusCode >= 200 && statusCode <= 299) {
    return { result: "succeeded", failure: null, wait: null }
  }
  // 410 says the endpoint is gone for good: retrying would only knock on a closed door.
  if (statusCode === 410) return { result: "failed", failure: "gone", wait: null }
  const delay = schedule[attemptNumber - 1]
  if (delay === undefined) return { result: "failed", failure: "exhausted", wait: null }
  return { result: "retrying", failure: null, wait: retryWait({ delay, jitter, retryAfterSeconds, statusCode }) }
}
