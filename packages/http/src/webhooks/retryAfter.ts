const DELTA_SECONDS = /^\d{1,10}$/

/**
 * A `Retry-After` value in seconds from `now` (Unix ms): delta-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`, past dates count as 0). Anything else is null: a receiver's
 * malformed header only loses its say, it never fails the attempt.
 */
export const parseRetryAfter = (value: string | undefined, now: number): number | null => {
  if (value === undefined) return null
  const text = value.trim()
  if (DELTA_SECONDS.test(text)) return Number(text)
  // Date.parse also takes ISO and bare numbers; an HTTP date always names the weekday and GMT.
  if (!/^[A-Za-z]{3},? .*GMT$/.test(text)) return null
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000))
}
