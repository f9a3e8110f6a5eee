// The benchmark harness: `npm run bench` (full) or `npm run bench -- --quick` (minutes; bench/README.md).
//   node bench/run.mjs [--quick] [--only commit,memory,http,queries,webhooks,feed,import] [--out file]
//   node bench/run.mjs --profile commit|http|all [--quick]     CPU profiles of the dealstream side
// Progress goes to stderr; the table to stdout; RESULTS.md next to this file (unless --only).
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { loadAverage, machine } from "./lib/machine.mjs"
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

/**
 * Durations and sizes of the two modes. Quick keeps every scenario, smaller, except what a target
 * names: the list page's 100k contacts and the 1,000 stage changes of a long deal (`history`:
 * how many such deals, and how many times a run moves each; see lib/dealHistory.mjs).
 */
const settings = quick
  ? {
    runs: 3,
    commit: { seconds: 0.4, warmupSeconds: 0.4, deals: 256, history: { longDeals: 8, movesPerDeal: 25 } },
    memory: { seconds: 0.5, warmupSeconds: 0.5, footprintContacts: 5_000, listContacts: 100_000, history: { longDeals: 32, movesPerDeal: 50 } },
    http: { seconds: 0.6, warmupSeconds: 0.5, connections: 50, listContacts: 200 },
    queries: { contacts: 50_000, deals: 10_000, requests: 20, maxSeconds: 2.5 },
    webhooks: { latencyContacts: 20, loadedContacts: 300, throughputContacts: 1000, recoveryEvents: 2000, concurrency: 16 },
    feed: { events: 100_000, latencyContacts: 50 },
    import: { contacts: 10_000, singleContacts: 5_000 }
  }
  : {
    runs: 5,
    commit: { seconds: 5, warmupSeconds: 3, deals: 2048, history: { longDeals: 32, movesPerDeal: 50 } },
    memory: { seconds: 5, warmupSeconds: 2, footprintContacts: 100_000, listContacts: 100_000, history: { longDeals: 128, movesPerDeal: 50 } },
    http: { seconds: 10, warmupSeconds: 3, connections: 50, listContacts: 2000 },
    queries: { contacts: 1_000_000, deals: 200_000, requests: 300, maxSeconds: 60 },
    webhooks: { latencyContacts: 300, loadedContacts: 2000, throughputContacts: 5000, recoveryEvents: 100_000, concurrency: 16 },
    feed: { events: 1_000_000, latencyContacts: 200 },
    import: { contacts: 100_000, singleContacts: 20_000 }
  }

const scenarios = {
  commit: () => import("./scenarios/commitPath.mjs").then((m) => m.commitPath),
  memory: () => import("./scenarios/inProcess.mjs").then((m) => m.inProcess),
  http: () => import("./scenarios/http.mjs").then((m) => m.http),
  queries: () => import("./scenarios/queries.mjs").then((m) => m.queries),
  webhooks: () => import("./scenarios/webhooks.mjs").then((m) => m.webhooks),
  feed: () => import("./scenarios/feed.mjs").then((m) => m.feed),
  import: () => import("./scenarios/import.mjs").then((m) => m.contactImport)
}

const built = ["core", "storage-memory", "storage-pg", "http"]
  .every((name) => existsSync(fileURLToPath(new URL(`../packages/${name}/dist/index.js`, import.meta.url))))
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

const started = Date.now()
const loadBefore = loadAverage()
log(`dealstream bench (${quick ? "quick" : "full"}), load average ${loadBefore}`)
const pg = await startPostgres({ log })
const outcomes = []
let broken = false
try {
  for (const name of only) {
    const t0 = Date.now()
    log(`${name}…`)
    const run = await scenarios[name]()
    try {
      const outcome = await run({ pg, settings: settings[name], runs: settings.runs, quick, log })
      outcomes.push({ name, ...outcome, seconds: (Date.now() - t0) / 1000 })
    } catch (error) {
      broken = true
      log(`${name} failed: ${error?.stack ?? error}`)
      outcomes.push({ name, rows: [], notes: [], failures: [`the scenario failed: ${error?.message ?? error}`], seconds: (Date.now() - t0) / 1000 })
    }
    log(`${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  }
} finally {
  await pg.stop()
}
const elapsed = (Date.now() - started) / 1000
const loadAfter = loadAverage()

const rows = outcomes.flatMap((o) => o.rows)
process.stdout.write(`${renderTable(rows)}\n`)
for (const o of outcomes) for (const failure of o.failures ?? []) log(`! ${o.name}: ${failure}`)
log(`total ${elapsed.toFixed(0)} s, load average before ${loadBefore}, after ${loadAfter}`)

// The performance analysis is written by hand (profiles, before/after) and kept under the figures.
const analysis = () => {
  const file = fileURLToPath(new URL("ANALYSIS.md", import.meta.url))
  return existsSync(file) ? `\n${readFileSync(file, "utf8")}` : ""
}

const out = option("out") ?? (option("only") === undefined ? fileURLToPath(new URL("RESULTS.md", import.meta.url)) : undefined)
if (out !== undefined) {
  writeFileSync(out, writeResults({
    quick,
    outcomes,
    rows,
    settings,
    machine: machine(),
    postgres: { version: pg.version, settings: pg.settings },
    load: { before: loadBefore, after: loadAfter },
    elapsed,
    command: `node bench/run.mjs ${argv.join(" ")}`.trim()
  }) + analysis())
  log(`wrote ${out}`)
}
// Missed targets are results, not failures; a scenario that could not run is. Exiting here also
// ends whatever a failed scenario left behind (its servers are killed on exit).
process.exit(broken ? 1 : 0)
