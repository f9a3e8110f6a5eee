const WIDTH = 20

/** `rebuilding [##########----------] 52% 10400/20000 events` */
export const progressLine = (label: string, done: number, total: number, unit: string): string => {
  const ratio = total <= 0 ? 1 : Math.min(1, done / total)
  const filled = Math.round(ratio * WIDTH)
  return `${label} [${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${Math.floor(ratio * 100)}% ${done}/${total} ${unit}`
}

export interface ProgressOutput {
  readonly isTTY?: boolean
  readonly write: (text: string) => unknown
}

export interface Progress {
  readonly update: (done: number, total: number) => void
  /** Ends the redrawn line, if one was drawn. */
  readonly finish: () => void
}

/**
 * On a terminal the bar is redrawn in place; anywhere else (a log file, CI) it is the first step
 * and then a line per tenth of the work, so the output stays readable and short.
 */
export const progress = (output: ProgressOutput, label: string, unit: string): Progress => {
  let drawn = false
  let lastTenth = -1
  return {
    update: (done, total) => {
      const line = progressLine(label, done, total, unit)
      if (output.isTTY === true) {
        output.write(`\r${line}`)
        drawn = true
        return
      }
      const tenth = Math.floor((total <= 0 ? 1 : Math.min(1, done / total)) * 10)
      if (tenth > lastTenth) {
        lastTenth = tenth
        output.write(`${line}\n`)
      }
    },
    finish: () => {
      if (drawn) output.write("\n")
      drawn = false
    }
  }
}
