// A before/after table from several runs of two versions, each run's RESULTS.md (or --out file):
//   node bench/lib/compareResults.mjs --before a.md b.md … --after x.md y.md …
// Per figure: the median of the runs' medians (and their range) on each side, after/before, and the
// dealstream/peer ratio column of each side (median over the runs). Figures only the after side has
// are listed apart. Prints Markdown on stdout; figures only the before side has go to stderr.
import { readFileSync } from "node:fs"

const args = process.argv.slice(2)
const split = args.indexOf("--after")
if (args[0] !== "--before" || split < 2 || split === args.length - 1) {
  process.stderr.write("usage: node bench/lib/compareResults.mjs --before a.md … --after x.md …\n")
  process.exit(2)
}
const beforeFiles = args.slice(1, split)
const afterFiles = args.slice(split + 1)
const parse = (file) => {
  const text = readFileSync(file, "utf8")
  const rows = new Map()
  const order = []
  for (const line of text.slice(text.indexOf("## All figures"), text.indexOf("## What each scenario measures")).split("\n")) {
    if (!line.startsWith("| ") || line.startsWith("| Scenario")) continue
    const [scenario, measure, system, median, , , unit, ratio] = line.slice(2, -2).split(" | ")
    const num = (s) => Number(s.replace(/,/g, ""))
    const r = ratio.match(/^([\d.,]+)×/)
    const key = `${scenario}|${measure}|${system}`
    rows.set(key, { scenario, measure, system, unit, median: num(median), ratio: r ? num(r[1]) : null })
    order.push(key)
  }
  return { rows, order }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = (s.length - 1) / 2
  return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2
}
const fmt = (x) => {
  if (x === null || x === undefined || Number.isNaN(x)) return "–"
  const abs = Math.abs(x)
  if (abs >= 1000) return Math.round(x).toLocaleString("en-US")
  if (abs >= 100) return x.toFixed(0)
  if (abs >= 10) return x.toFixed(1)
  return x.toFixed(2)
}
const b = beforeFiles.map(parse)
const a = afterFiles.map(parse)
const cell = (values) => `${fmt(median(values))} (${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`
const out = [
  "| Scenario | Measure | System | Unit | before | after | after/before | dealstream/this, before → after |",
  "|---|---|---|---|---:|---:|---:|---|"
]
const onlyAfter = []
for (const key of a[0].order) {
  if (!b.every((run) => run.rows.has(key))) {
    onlyAfter.push(key)
    continue
  }
  const before = b.map((run) => run.rows.get(key))
  const after = a.map((run) => run.rows.get(key))
  const row = after[0]
  const change = median(after.map((r) => r.median)) / median(before.map((r) => r.median))
  const ratio = row.ratio === null ? "" : `${fmt(median(before.map((r) => r.ratio)))}× → ${fmt(median(after.map((r) => r.ratio)))}×`
  out.push(
    `| ${row.scenario} | ${row.measure} | ${row.system} | ${row.unit} | ${cell(before.map((r) => r.median))} | ${cell(after.map((r) => r.median))} | ${fmt(change)}× | ${ratio} |`
  )
}
console.log(out.join("\n"))
console.log("\nOnly after:\n")
const extra = ["| Scenario | Measure | System | Unit | after | dealstream/this (each run) |", "|---|---|---|---|---:|---|"]
for (const key of onlyAfter) {
  const after = a.map((run) => run.rows.get(key))
  const row = after[0]
  extra.push(
    `| ${row.scenario} | ${row.measure} | ${row.system} | ${row.unit} | ${cell(after.map((r) => r.median))} | ${row.ratio === null ? "" : `${fmt(median(after.map((r) => r.ratio)))}× (${after.map((r) => fmt(r.ratio)).join(", ")})`} |`
  )
}
console.log(extra.join("\n"))
for (const key of b[0].order) if (!a[0].rows.has(key)) process.stderr.write(`only before: ${key}\n`)
