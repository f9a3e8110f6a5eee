// Sustained load on the real host: `npm run soak` (builds first), or
//   node bench/soak.mjs [--seconds 60] [--connections 50] [--windows 3] [--warmup 10]
// Starts `dealstream serve` on its default storage (the embedded PostgreSQL) in a fresh data
// directory, drives mixed traffic (bench/soak/traffic.mjs) from `connections` keep-alive
// connections, samples the host process's resident memory every second, and reports per window:
// requests, errors, req/s, latency and RSS. Exits 1 when any answer was an error (anything but 2xx,
// save the 404s and 409s the traffic asks for on purpose) or when RSS kept growing beyond noise
// across the windows (bench/soak/rss.mjs says how that is decided).
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { mib, residentBytes, verdict } from "./soak/rss.mjs"
import { MIX, runTraffic } from "./soak/traffic.mjs"

const argv = process.argv.slice(2)
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`)
  if (i < 0) return fallback
  const value = Number(argv[i + 1])
  if (!Number.isFinite(value) || value <= 0) {
    process.stderr.write(`soak: --${name} needs a positive number\n`)
    process.exit(2)
  }
  return value
}
const seconds = option("seconds", 60)
const connections = Math.floor(option("connections", 50))
const windowCount = Math.floor(option("windows", 3))
const warmupSeconds = option("warmup", 10)
const windowMs = (seconds * 1000) / windowCount
const log = (line) => process.stderr.write(`${line}\n`)

const bin = fileURLToPath(new URL("../packages/http/dist/bin.js", import.meta.url))
if (!existsSync(bin)) {
  log("soak: the host is not built; run `npm run soak` (it builds first) or `npm run build`")
  process.exit(1)
}

// --- The host ------------------------------------------------------------------------------------

const KEY = `soak_${Math.random().toString(36).slice(2)}_0123456789`
const dataDir = mkdtempSync(join(tmpdir(), "dealstream-soak-"))
const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name !== "PORT" && name !== "DATABASE_URL" && !name.startsWith("DEALSTREAM_"))
)
const host = spawn(
  process.execPath,
  [
    bin,
    "serve",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--data-dir",
    dataDir,
    "--api-keys",
    `soak:${KEY}`,
    "--rate-limit",
    "1000000",
    "--rate-burst",
    "1000000"
  ],
  { env, stdio: ["ignore", "ignore", "pipe"] }
)
const exited = new Promise((resolve) => host.once("exit", (code, signal) => resolve({ code, signal })))
let stderr = ""
const base = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`the host did not start within 90 s: ${stderr.slice(-500)}`)), 90_000)
  host.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-8192)
    const match = /listening on (http:\/\/\S+)/.exec(stderr)
    if (match !== null) {
      clearTimeout(timer)
      resolve(match[1])
    }
  })
  exited.then(({ code, signal }) => reject(new Error(`the host exited (${code ?? signal}) before listening: ${stderr.slice(-500)}`)))
}).catch((error) => {
  log(`soak: ${error.message}`)
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(1)
})

const stopHost = async () => {
  if (host.exitCode === null && host.signalCode === null) host.kill("SIGTERM")
  const kill = setTimeout(() => host.kill("SIGKILL"), 30_000)
  const result = await exited
  clearTimeout(kill)
  rmSync(dataDir, { recursive: true, force: true })
  return result
}

// A soak that breaks still stops the host, which stops its PostgreSQL (a SIGKILLed host would leave it running).
const abort = async (error) => {
  log(`soak: ${error?.stack ?? error}`)
  await stopHost()
  process.exit(1)
}
process.on("uncaughtException", abort)
process.on("unhandledRejection", abort)

// --- Traffic, windows and samples ------------------------------------------------------------

const pipeline = await fetch(`${base}/v1/pipelines`, { headers: { authorization: `Bearer ${KEY}` } })
  .then((response) => response.json())
  .then((body) => body.data[0])

const newWindow = (name) => ({ name, requests: 0, errors: 0, expected: 0, latencies: [], rss: [], started: performance.now(), ended: 0 })
let current = newWindow("warm-up")
const windows = []
const errorSamples = []
const byOp = new Map(MIX.map(([name]) => [name, { requests: 0, errors: 0 }]))

const record = (op, answer, expected) => {
  const ok = expected === null ? answer.status >= 200 && answer.status < 300 : answer.status === expected
  current.requests++
  current.latencies.push(answer.millis)
  if (expected !== null && ok) current.expected++
  const entry = byOp.get(op)
  if (current.name !== "warm-up") {
    entry.requests++
    if (!ok) entry.errors++
  }
  if (!ok) {
    current.errors++
    if (errorSamples.length < 10) errorSamples.push(`${op}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)
  }
}

const sample = () => {
  const bytes = residentBytes(host.pid)
  if (bytes !== null) current.rss.push(bytes)
}
const sampler = setInterval(sample, 1000)
sample()

let done = false
log(
  `soak: ${base} (embedded PostgreSQL in ${dataDir}), ${connections} connections, ${warmupSeconds} s warm-up, then ${seconds} s in ${windowCount} windows`
)
const traffic = runTraffic({ base, key: KEY, connections, pipeline, stop: () => done, record })

/** Ends the current window (a last sample) and starts `next` (a first one), if any. */
const rotate = (next) => {
  sample()
  current.ended = performance.now()
  const finished = current
  current = next
  if (next !== null) sample()
  return finished
}
await new Promise((resolve) => setTimeout(resolve, warmupSeconds * 1000))
const warmup = rotate(newWindow("1"))
for (let i = 1; i <= windowCount; i++) {
  await new Promise((resolve) => setTimeout(resolve, windowMs))
  windows.push(rotate(newWindow(i < windowCount ? String(i + 1) : "drain")))
  log(
    `soak: window ${i}/${windowCount}: ${windows.at(-1).requests} requests, ${windows.at(-1).errors} errors, RSS ${mib(windows.at(-1).rss.at(-1))} MiB`
  )
}
done = true
await traffic
clearInterval(sampler)
const drain = rotate(null)
const stopped = await stopHost()

// --- Report ----------------------------------------------------------------------------------------

const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}
if (windows.some((w) => w.rss.length === 0)) {
  log("soak: no resident memory samples of the host (this reads /proc/<pid>/status, Linux only)")
  process.exit(1)
}
const memory = verdict(windows.map((w) => w.rss))
const row = (w, i) => {
  const secondsIn = (w.ended - w.started) / 1000
  const rss = i === null ? null : memory.described[i]
  return [
    w.name,
    String(w.requests),
    String(w.errors),
    (w.requests / secondsIn).toFixed(0),
    percentile(w.latencies, 0.5).toFixed(1),
    percentile(w.latencies, 0.99).toFixed(1),
    rss === null ? mib(w.rss[0]) : mib(rss.start),
    rss === null ? mib(w.rss.at(-1)) : mib(rss.end),
    rss === null ? mib(Math.max(...w.rss)) : mib(rss.max),
    rss === null ? "" : mib(rss.median)
  ]
}
const header = ["window", "requests", "errors", "req/s", "p50 ms", "p99 ms", "RSS start", "RSS end", "RSS max", "RSS median"]
const rows = [row(warmup, null), ...windows.map((w, i) => row(w, i)), row(drain, null)]
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`

const measured = windows.reduce((sum, w) => sum + w.requests, 0)
const errors = [warmup, ...windows, drain].reduce((sum, w) => sum + w.errors, 0)
const expected = [warmup, ...windows, drain].reduce((sum, w) => sum + w.expected, 0)
console.log(`$ node bench/soak.mjs ${argv.join(" ")}`.trimEnd())
console.log(
  `dealstream soak: ${seconds} s at ${connections} connections after ${warmupSeconds} s of warm-up, embedded PostgreSQL, ` +
    `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${mib(totalmem())} MiB, load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`
)
console.log("")
console.log(line(header))
console.log(`|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`)
for (const r of rows) console.log(line(r))
console.log("")
console.log(`mix (measured windows): ${[...byOp].map(([op, { requests }]) => `${op} ${requests}`).join(", ")}`)
console.log(
  `requests: ${measured} in the ${windowCount} windows (${(measured / seconds).toFixed(0)}/s); errors in all: ${errors}; ` +
    `deliberate 404/409 answered as asked: ${expected}`
)
console.log(
  `RSS (MiB, host process): median by window ${memory.described.map((w) => mib(w.median)).join(" → ")}; growth first→last ` +
    `${mib(memory.growth)}, noise ${mib(memory.noise)} (widest p10–p90 band of a window, at least ${mib(16 * 1024 * 1024)}): ` +
    `${memory.levelled ? "levelled off" : "KEEPS GROWING"}`
)
console.log(`host stopped: ${stopped.code === 0 ? "exit 0" : `exit ${stopped.code ?? stopped.signal}`}`)
if (errorSamples.length > 0) console.log(`first errors:\n  ${errorSamples.join("\n  ")}`)

const failed = errors > 0 || !memory.levelled || stopped.code !== 0
process.exit(failed ? 1 : 0)
