// The benchmark harness: `npm run bench` (full) or `npm run bench -- --quick` (minutes; bench/README.md).
//   node bench/run.mjs [--quick | --smoke] [--only commit,memory,http,queries,webhooks,feed,import,export,scaleout,figures,citus] [--out file]
//   node bench/run.mjs … --keep-data DIR    PostgreSQL's data kept in DIR; the figures scenario reuses its seed
//   node bench/run.mjs --profile commit|http|all [--quick]     CPU profiles of the dealstream side
// Progress goes to stderr; the table to stdout; RESULTS.md next to this file (unless --only or --smoke).
// Exits 1 when a scenario threw or failed one of its own checks; a missed target is a result, not a failure.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { loadAverage, machine } from "./lib/machine.mjs"
import { modes } from "./lib/modes.mjs"
import { startPostgres } from "./lib/postgres.mjs"
import { renderTable } from "./lib/report.mjs"
import { writeResults } from "./lib/results.mjs"

const argv = process.argv.slice(2)
const flag = (name) => argv.includes(`--${name}`)
const option = (name) => {
  const i = argv.indexOf(`--${name}`)
  return i < 0 ? undefined : argv[i + 1]
}

const quick = flag("quick")
const log = (line) => process.stderr.write(`${line}\n`)

const mode = flag("smoke") ? "smoke" : quick ? "quick" : "full"
const settings = modes[mode]

const scenarios = {
  commit: () => import("./scenarios/commitPath.mjs").then((m) => m.commitPath),
  memory: () => import("./scenarios/inProcess.mjs").then((m) => m.inProcess),
  http: () => import("./scenarios/http.mjs").then((m) => m.http),
  queries: () => import("./scenarios/queries.mjs").then((m) => m.queries),
  webhooks: () => import("./scenarios/webhooks.mjs").then((m) => m.webhooks),
  feed: () => import("./scenarios/feed.mjs").then((m) => m.feed),
  import: () => import("./scenarios/import.mjs").then((m) => m.contactImport),
  export: () => import("./scenarios/export.mjs").then((m) => m.contactExport),
  scaleout: () => import("./scenarios/scaleOut.mjs").then((m) => m.scaleOut),
  figures: () => import("./scenarios/pipelineFigures.mjs").then((m) => m.pipelineFigures),
  citus: () => import("./scenarios/citus.mjs").then((m) => m.citus)
}

const built = ["core", "storage-memory", "storage-pg", "http"].every((name) =>
  existsSync(fileURLToPath(new URL(`../packages/${name}/dist/index.js`, import.meta.url)))
)
if (!built) {
  log("bench: the packages are not built; run `npm run bench` (it builds first) or `npm run build`")
  process.exit(1)
}

if (option("profile") !== undefined) {
  const { profile } = await import("./lib/profile.mjs")
  await profile({ what: option("profile"), quick, log })
  process.exit(0)
}

const only = option("only")?.split(",") ?? Object.keys(scenarios)
const unknown = only.filter((name) => !(name in scenarios))
if (unknown.length > 0) {
  log(`bench: unknown scenario ${unknown.join(", ")}; choose from ${Object.keys(scenarios).join(", ")}`)
  process.exit(2)
}

if (mode === "smoke" && option("out") !== undefined) {
  log("bench: --smoke writes no results file (its sizes are too small for figures); drop --out")
  process.exit(2)
}

const started = Date.now()
const loadBefore = loadAverage()
log(`dealstream bench (${mode}), load average ${loadBefore}`)
if (mode === "smoke") log("smoke: every scenario once at tiny sizes, to see that it runs and passes its own checks; targets are not judged")
const pg = await startPostgres({ log, keep: option("keep-data") })
const outcomes = []
try {
  for (const name of only) {
    const t0 = Date.now()
    log(`${name}…`)
    try {
      const run = await scenarios[name]()
      const outcome = await run({ pg, settings: settings[name], runs: settings.runs, quick: mode !== "full", log })
      outcomes.push({ name, ...outcome, seconds: (Date.now() - t0) / 1000 })
    } catch (error) {
      log(`${name} failed: ${error?.stack ?? error}`)
      outcomes.push({
        name,
        rows: [],
        notes: [],
        failures: [`the scenario failed: ${error?.message ?? error}`],
        seconds: (Date.now() - t0) / 1000
      })
    }
    log(`${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  }
} finally {
  await pg.stop()
}
const elapsed = (Date.now() - started) / 1000
const loadAfter = loadAverage()

// Smoke sizes are far below what any target names: its figures are shown without them.
const measured = outcomes.flatMap((o) => o.rows)
const rows = mode === "smoke" ? measured.map(({ target: _, ...row }) => row) : measured
process.stdout.write(`${renderTable(rows)}\n`)
const failed = outcomes.filter((o) => (o.failures ?? []).length > 0)
for (const o of failed) for (const failure of o.failures) log(`! ${o.name}: ${failure}`)
log(`total ${elapsed.toFixed(0)} s, load average before ${loadBefore}, after ${loadAfter}`)
if (mode === "smoke") log("smoke: targets not judged (sizes too small to mean anything); figures only show the scenarios ran")
log(
  failed.length === 0 ? `${mode}: every scenario ran and passed its own checks` : `${mode}: FAILED: ${failed.map((o) => o.name).join(", ")}`
)

// The performance analysis is written by hand (profiles, before/after) and kept under the figures.
const analysis = () => {
  const file = fileURLToPath(new URL("ANALYSIS.md", import.meta.url))
  return existsSync(file) ? `\n${readFileSync(file, "utf8")}` : ""
}

const out =
  mode === "smoke"
    ? undefined
    : (option("out") ?? (option("only") === undefined ? fileURLToPath(new URL("RESULTS.md", import.meta.url)) : undefined))
if (out !== undefined) {
  writeFileSync(
    out,
    writeResults({
      quick,
      outcomes,
      rows,
      settings,
      machine: machine(),
      postgres: { version: pg.version, settings: pg.settings },
      load: { before: loadBefore, after: loadAfter },
      elapsed,
      command: `node bench/run.mjs ${argv.join(" ")}`.trim()
    }) + analysis()
  )
  log(`wrote ${out}`)
}
// Missed targets are results, not failures; a scenario that threw or whose own checks failed (a
// command refused, a delivery lost) is. Exiting here also ends whatever a failed scenario left
// behind (its servers are killed on exit).
process.exit(failed.length > 0 ? 1 : 0)
