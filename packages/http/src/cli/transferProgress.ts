/**
 * Progress of an import or an export on stderr: on a terminal one line redrawn in place (rows,
 * rows per second and, when the total is known, a bar and the time left); anywhere else a plain
 * line at most every 5 seconds and at each tenth of a known total, so a log stays short.
 */

export interface ProgressOutput {
  readonly isTTY?: boolean
  readonly write: (text: string) => unknown
}

const WIDTH = 20

export const transferLine = (label: string, done: number, total: number | null, unit: string, seconds: number): string => {
  const rate = seconds > 0 ? Math.round(done / seconds) : 0
  const speed = `${rate} ${unit}/s`
  if (total === null) return `${label} ${done} ${unit}, ${speed}`
  const ratio = total <= 0 ? 1 : Math.min(1, done / total)
  const filled = Math.round(ratio * WIDTH)
  const left = rate > 0 ? `, ${Math.ceil((total - done) / rate)} s left` : ""
  return `${label} [${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${Math.floor(ratio * 100)}% ${done}/${total} ${unit}, ${speed}${done < total ? left : ""}`
}

export const rateProgress = (output: ProgressOutput, label: string, total: number | null, unit: string, now: () => number = Date.now) => {
  const started = now()
  let drawn = false
  let lastLine = -Infinity
  let lastTenth = -1
  let done = 0
  const line = () => transferLine(label, done, total, unit, (now() - started) / 1000)
  return {
    update: (count: number) => {
      done = count
      if (output.isTTY === true) {
        output.write(`\r${line()}\u001b[K`)
        drawn = true
        return
      }
      const tenth = total === null || total <= 0 ? -1 : Math.floor(Math.min(1, done / total) * 10)
      if (tenth > lastTenth || now() - lastLine >= 5_000) {
        lastTenth = Math.max(lastTenth, tenth)
        lastLine = now()
        output.write(`${line()}\n`)
      }
    },
    finish: () => {
      if (drawn) output.write(`\r${line()}\u001b[K\n`)
      drawn = false
    }
  }
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export const csvEscape = (text: string): string => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text)
