// Result rows, targets, and their rendering as a console table and as Markdown.
import { fmt, median, summary } from "./stats.mjs"

/**
 * A row is one figure of one system: `runs` (one value per run), and for a peer or a ceiling the
 * per-run ratio dealstream / this system. A target says which of the two it bounds.
 *   { scenario, measure, system, unit, runs, ratio?: number[], target?: Target, note? }
 *   Target = { text, on: "value" | "ratio", atLeast?: number, atMost?: number }
 */
export const evaluate = (row) => {
  const target = row.target
  if (target === undefined) return null
  const value = median(target.on === "ratio" ? row.ratio : row.runs)
  if (Number.isNaN(value)) return { met: false, value, detail: "not measured" }
  if (target.atLeast !== undefined) {
    const met = value >= target.atLeast
    return {
      met,
      value,
      detail: met
        ? "met"
        : `MISSED: ${fmt(value)} is ${fmt(target.atLeast - value)} short (${Math.round((value / target.atLeast) * 100)}% of target)`
    }
  }
  const met = value <= target.atMost
  return {
    met,
    value,
    detail: met ? "met" : `MISSED: ${fmt(value)} is ${fmt(value - target.atMost)} over (${fmt(value / target.atMost)}× the limit)`
  }
}

const columns = ["Scenario", "Measure", "System", "Median", "Min", "Max", "Unit", "dealstream/this", "Target", "Status"]

const cells = (row) => {
  const s = summary(row.runs)
  const r = row.ratio === undefined ? null : summary(row.ratio)
  const verdict = evaluate(row)
  return [
    row.scenario,
    row.measure,
    row.system,
    fmt(s.median),
    fmt(s.min),
    fmt(s.max),
    row.unit,
    r === null ? "" : `${fmt(r.median)}× (${fmt(r.min)}–${fmt(r.max)})`,
    row.target?.text ?? "",
    verdict === null ? "" : verdict.detail
  ]
}

/** A fixed-width table; the scenario is printed once per group. */
export const renderTable = (rows) => {
  const body = rows.map(cells)
  body.forEach((line, i) => {
    if (i > 0 && rows[i - 1].scenario === rows[i].scenario) line[0] = ""
  })
  const widths = columns.map((c, i) => Math.max(c.length, ...body.map((line) => line[i].length)))
  const numeric = new Set([3, 4, 5])
  const format = (line) =>
    line
      .map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join("  ")
      .trimEnd()
  return [format(columns), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(format)].join("\n")
}

export const renderMarkdown = (rows) => {
  const escapeCell = (cell) => cell.replaceAll("|", "\\|")
  return [
    `| ${columns.join(" | ")} |`,
    `|${columns.map((_, i) => ([3, 4, 5].includes(i) ? "---:" : "---")).join("|")}|`,
    ...rows.map((row) => `| ${cells(row).map(escapeCell).join(" | ")} |`)
  ].join("\n")
}

/** Targets only: each figure next to its goal, and by how much it was missed. */
export const renderTargets = (rows) => {
  const withTargets = rows.filter((row) => row.target !== undefined)
  return [
    "| Target | Scenario | Measure | Measured (median) | Status |",
    "|---|---|---|---:|---|",
    ...withTargets.map((row) => {
      const verdict = evaluate(row)
      const what = row.target.on === "ratio" ? `${fmt(verdict.value)}× ${row.system}` : `${fmt(verdict.value)} ${row.unit}`
      return `| ${row.target.text} | ${row.scenario} | ${row.measure} | ${what} | ${verdict.detail} |`
    })
  ].join("\n")
}
