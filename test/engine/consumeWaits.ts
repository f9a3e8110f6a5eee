/**
 * Waiting for what a consumer's handler did, woken by the handler itself (never by a timer alone):
 * `changed()` after each handled event, `until(check)` resolves once `check` holds.
 */
export const handlerSignals = (timeoutMillis = 20_000) => {
  const waiting = new Set<() => void>()
  const changed = () => {
    for (const wake of [...waiting]) wake()
  }
  const until = (check: () => boolean, what: string): Promise<void> =>
    new Promise((done, fail) => {
      const wake = () => {
        if (!check()) return
        waiting.delete(wake)
        clearTimeout(timer)
        done()
      }
      const timer = setTimeout(() => {
        waiting.delete(wake)
        fail(new Error(`not seen within ${timeoutMillis} ms: ${what}`))
      }, timeoutMillis)
      waiting.add(wake)
      wake()
    })
  return { changed, until }
}
