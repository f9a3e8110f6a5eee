// Small statistics and formatting helpers shared by the scenarios and the report.

export const median = (xs) => quantile(xs, 0.5)

/** Linear-interpolated quantile of an unsorted sample (q in [0, 1]); NaN for an empty sample. */
export const quantile = (xs, q) => {
  if (xs.length === 0) return NaN
  const sorted = [...xs].sort((a, b) => a - b)
  const at = (sorted.length - 1) * q
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo)
}

export const summary = (runs) => ({ median: median(runs), min: Math.min(...runs), max: Math.max(...runs) })

/** Per-run ratios a[i] / b[i]: runs measured side by side in the same round are compared. */
export const ratios = (a, b) => a.map((x, i) => x / b[i])

/** A number at a precision that suits its size: 12345, 123.4, 1.23, 0.123. */
export const fmt = (x) => {
  if (x === undefined || x === null || Number.isNaN(x)) return "–"
  const abs = Math.abs(x)
  if (abs >= 1000) return Math.round(x).toLocaleString("en-US")
  if (abs >= 100) return x.toFixed(0)
  if (abs >= 10) return x.toFixed(1)
  return x.toFixed(2)
}

export const fmtRuns = (runs) => {
  const s = summary(runs)
  return `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`
}
