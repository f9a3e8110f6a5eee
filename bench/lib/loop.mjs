// Closed-loop load: `concurrency` workers each run `op` back to back for a fixed time.

/**
 * Returns operations completed per second over the whole window (in-flight operations are
 * awaited and counted, so the window is slightly longer than asked). Failed operations are
 * counted apart; the first one is kept so a broken system shows up instead of a silent 0.
 */
export const closedLoop = async ({ concurrency, seconds, op }) => {
  let done = 0
  let failed = 0
  let firstError = null
  const start = performance.now()
  const until = start + seconds * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() < until; i++) {
        try {
          await op(worker, i)
          done++
        } catch (error) {
          failed++
          firstError ??= error
        }
      }
    })
  )
  const elapsed = (performance.now() - start) / 1000
  return { rate: done / elapsed, done, failed, firstError, elapsed }
}

/**
 * `op(0, i)` for i in [0, count), one after another: operations per second over exactly `count`
 * operations, for figures whose cost depends on how many ran before (a stream's history grows with
 * every move, so a fixed count keeps it in a known range where a fixed time would not).
 */
export const countedLoop = async ({ count, op }) => {
  let failed = 0
  let firstError = null
  const start = performance.now()
  for (let i = 0; i < count; i++) {
    try {
      await op(0, i)
    } catch (error) {
      failed++
      firstError ??= error
    }
  }
  const elapsed = (performance.now() - start) / 1000
  return { rate: (count - failed) / elapsed, done: count - failed, failed, firstError, elapsed }
}

/** Runs `op(i)` for i in [0, n) with at most `concurrency` in flight. */
export const forEachConcurrently = async (n, concurrency, op) => {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await op(next++)
    })
  )
}

/** A short unique tag for this process, so emails and ids of different runs never collide. */
export const runTag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

/**
 * Open-loop load: `op(i)` for i in [0, n), the i-th started at `i / perSecond` seconds after the
 * first whether or not earlier ones have answered, as independent clients arrive. Unlike the closed
 * loops above it does not slow down when the system does, so latency under it is the system's at
 * that rate, not the queue a saturating client builds. Returns the rate actually started.
 */
export const openLoop = async (n, perSecond, op) => {
  const start = performance.now()
  const running = []
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / perSecond
    const wait = due - performance.now()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    running.push(op(i))
  }
  const started = (performance.now() - start) / 1000
  await Promise.all(running)
  return { startedPerSecond: n > 1 ? (n - 1) / started : n }
}
